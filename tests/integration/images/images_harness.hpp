// What the image tests share: starting the docker backend on an image, the checks made in every image
// (no loader leak, jupyter's missing need, the Debian image's own tools), a host run in a root of its own
// without dockerd (ChrootHost), a real registry (docker-registry) and containers started by hand.
#pragma once

#include <actionhost/client/wire_client.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime_harness.hpp"
#include "support/free_port.hpp"
#include "support/local_registry.hpp"
#include "support/temp_dir.hpp"

namespace images_test {

// The docker backend on `image` (bind mode unless `tweak` says otherwise), with `plugins`.
std::unique_ptr<runtimes_test::StartedRuntime> start_in_image(const std::string &image, const std::vector<std::string> &plugins,
                                                              const std::function<void(actionhost::client::Config &)> &tweak = {});

// `run` as a WireClient action (content, exit code).
nlohmann::json wire_run(actionhost::client::WireClient &wire, const std::string &command);

// Nothing of the host's loader or libraries reaches what it starts: no LD_* variable, no bundle library
// mapped into the shell.
void expect_no_loader_leak(actionhost::client::WireClient &wire);
inline void expect_no_loader_leak(actionhost::client::Runtime &rt) { expect_no_loader_leak(rt.wire()); }
// run_ipython answers the error observation naming python3 with ipykernel, and /server_info lists it.
void expect_jupyter_needs_ipykernel(actionhost::client::WireClient &wire);
// In the Debian image: the image's own bash and python3 run, an IPython cell runs, no leak.
void expect_debian_image_tools(actionhost::client::WireClient &wire);
inline void expect_debian_image_tools(actionhost::client::Runtime &rt) { expect_debian_image_tools(rt.wire()); }

using actionhost::testing::free_port;
// docs/runtimes.md's Dockerfile: FROM `base`, ADD the bundle tarball into /openhands/. Returns "" or why not.
std::string build_image_from_bundle_tarball(const std::string &base, const std::string &image, std::string &why);
// Creates and starts a container of `image` running `cmd` (entrypoint []), publishing `port` on
// 127.0.0.1. Returns its id ("" after a failed expectation).
std::string run_container(const std::string &image, const nlohmann::json &cmd, const std::vector<std::string> &env, int port,
                          const std::string &working_dir);
std::string container_logs(const std::string &id);
bool wait_alive(actionhost::client::WireClient &wire, double timeout_s);

// The bundle's host in `root` (a busybox or Debian root) without dockerd: new mount and pid namespaces
// (unshare), the bundle bind-mounted read-only at /openhands/actionhost, /proc and /dev, chroot, and the
// image's default environment (PATH, HOME) only. Killed with its namespace when the object goes.
class ChrootHost {
  public:
    ChrootHost(const std::string &root, const std::vector<std::string> &args);
    ~ChrootHost();
    bool started() const { return port_ > 0; }
    const std::string &why_not() const { return why_not_; }
    actionhost::client::WireClient &wire() { return *wire_; }

  private:
    std::string root_, log_, why_not_;
    int pid_ = -1, port_ = 0;
    std::unique_ptr<actionhost::client::WireClient> wire_;
};

// Debian's docker-registry on 127.0.0.1:<free port> (tests/support/local_registry.hpp).
using actionhost::testing::LocalRegistry;

}  // namespace images_test
