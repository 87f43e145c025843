// The keeper programs of the `local` and `docker` runtimes (ah-local-keeper, ah-docker-keeper:
// docs/runtimes.md, "Lifetimes"): a process of the client's user that outlives the client and keeps a
// runtime's lifetime and idle timeout (lifetime_keeper.hpp) where ah-sandbox-init keeps a sandbox's.
// This is all of such a program but what it does to its runtime, which its backend gives as a
// KeeperTarget (runtimes/local/local_keeper.cpp, runtimes/docker/docker_keeper.cpp).
//
// Started by the backend through start_keeper (keeper_client.hpp), it detaches — forks, the parent
// exits, the child makes a session of its own (setsid): neither the client's exit nor a signal to the
// client's process group or session reaches it — sets the target up, listens on its control socket
// (mode 0600, in the client's state directory: json_line_socket.hpp, ops of lifetime_requests.hpp),
// writes its record ({"pid", "pid_start", "boot_id", "socket"}) and says "ready <pid>" on its stdout,
// which the backend waits for. Then it runs until
//   - the lifetime is over or the idle timeout says "stop": it removes the session's records
//     (--expiry-remove), ends the runtime as the backend's stop does (KeeperTarget::end), and exits;
//   - SIGTERM, SIGINT or SIGHUP (the backend's stop ends it so, by the identity in its record, before
//     stopping the runtime itself), or the runtime is gone by other means (looked at every second): it
//     thaws what it paused, releases what it set up and exits, the runtime left as it is.
// Either way it removes its socket and record last.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "actionhost/lifetime/lifetime_plan.hpp"

namespace CLI {
class App;
}

namespace actionhost::lifetime {

class KeeperTarget {
  public:
    virtual ~KeeperTarget() = default;
    // Once detached, before "ready": throws std::runtime_error with a sentence for a runtime this
    // keeper cannot keep as `plan` asks (the host already gone, no way to count its connections).
    virtual void prepare(const LifetimePlan &plan) = 0;
    // The runtime has ended by other means (stopped by its backend, removed, crashed).
    virtual bool gone() = 0;
    // Connections open to it now (tcp_activity.hpp).
    virtual size_t connections() = 0;
    // The idle pause: false when it could not be done. frozen(): paused now, by anyone.
    virtual bool freeze() = 0;
    virtual bool thaw() = 0;
    virtual bool frozen() = 0;
    // Ends the runtime as its backend's stop does, removing what that removes.
    virtual void end() = 0;
    // The keeper goes and the runtime stays: undo what prepare() set up.
    virtual void release() {}
    // How long a caller of a paused runtime waits at most before the keeper sees it.
    virtual std::chrono::milliseconds paused_tick() const { return std::chrono::milliseconds(100); }
};

struct KeeperProgram {
    std::string name;                                            // "ah-local-keeper": its --help, its lines on stderr
    std::string description;                                     // its --help's first line
    std::function<void(CLI::App &)> add_options;                 // the target's own options
    std::function<std::unique_ptr<KeeperTarget>()> make_target;  // called once the options are parsed
};

// main() of a keeper program. Exits 0 (the detaching parent, and the keeper once it is done), 1 when
// the target cannot be kept ("error: ..." on stdout), 2 for a bad command line.
int run_keeper_program(int argc, char **argv, const KeeperProgram &program);

}  // namespace actionhost::lifetime
