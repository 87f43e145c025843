#include "user_net.hpp"

#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <unistd.h>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/process/child_process.hpp>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

namespace sandbox {

using actionhost::common::ChildProcess;
using actionhost::common::SpawnSpec;
using actionhost::common::Stream;

namespace {

std::string program_dir() {
    char self[PATH_MAX] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) throw std::runtime_error("cannot find this program's directory");
    std::string path(self, static_cast<size_t>(n));
    return path.substr(0, path.rfind('/'));
}

// A helper that runs to its end, its output kept for the error message.
std::unique_ptr<ChildProcess> start(const std::string &program, std::vector<std::string> argv) {
    SpawnSpec spec;
    spec.program = program;
    spec.argv = std::move(argv);
    spec.use_pty = false;
    spec.out = Stream::pipe();
    spec.err = Stream::to_stdout();
    const char *path = std::getenv("PATH");
    spec.search_path = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    auto child = ChildProcess::spawn(spec);
    if (!child) throw std::runtime_error("cannot run " + program + ": " + child.error().message);
    return std::move(child).value();
}

// "" when `child` exited 0 within the deadline, else why not (with what it printed, bounded).
std::string wait_for(ChildProcess &child, const std::string &name, std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const auto status = child.wait(std::max(left, std::chrono::milliseconds(1)));
    std::string said;
    char buf[4096];
    for (ssize_t n; said.size() < 16384 && (n = read(child.output_fd(), buf, sizeof buf)) > 0;) said.append(buf, static_cast<size_t>(n));
    if (!status) {
        child.terminate(std::chrono::milliseconds(100));
        return name + " did not finish within 20 s";
    }
    if (status->shell_code() == 0) return "";
    return name + " failed (" + status->describe() + ")" + (said.empty() ? "" : ": " + said);
}


// Runs `argv` to its end and returns what it printed; std::runtime_error with that when it failed or did
// not end within 20 s. Read as it comes (a listing can be larger than a pipe holds), at most 4 MiB.
std::string run_to_end(const std::string &program, const std::vector<std::string> &argv, const std::string &name) {
    auto child = start(program, argv);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string said;
    char buf[16384];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        pollfd p{child->output_fd(), POLLIN, 0};
        if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) break;
        const ssize_t n = read(child->output_fd(), buf, sizeof buf);
        if (n <= 0) break;
        if (said.size() < (4u << 20)) said.append(buf, static_cast<size_t>(n));
    }
    const std::string why = wait_for(*child, name, deadline);
    if (!why.empty()) throw std::runtime_error(why + (said.empty() ? "" : ": " + said.substr(0, 4096)));
    return said;
}

// The policy with every entry normalised ("10.1.2.3" → "10.1.2.3/32"): entries compare as text after.
EgressPolicy normalised(const EgressPolicy &p) {
    EgressPolicy out{{}, {}, p.allow_only || !p.allow.empty()};
    for (const auto &a : p.allow) out.allow.push_back(normalise_cidr(a));
    for (const auto &d : p.deny) out.deny.push_back(normalise_cidr(d));
    return out;
}

}  // namespace

UserModeNetwork::UserModeNetwork(const EgressPolicy &policy)
    : policy_(normalised(policy)), machine_(machine_addresses()), ruleset_(egress_ruleset(machine_, policy_)),
      helper_(program_dir() + "/ah-sandbox-net") {
    if (access(helper_.c_str(), X_OK) != 0) throw std::runtime_error("network = \"internet\" needs " + helper_ + ", which is missing");
}

UserModeNetwork::~UserModeNetwork() { end(); }

std::string UserModeNetwork::begin(pid_t pid1) {
    // pasta gets the namespaces as descriptors of its own: it opens them after giving up the right to
    // look into another user's processes, and pid 1 is the sandbox's root by then.
    const std::string proc = "/proc/" + std::to_string(pid1) + "/ns/";
    const actionhost::common::io::UniqueFd user_ns(open((proc + "user").c_str(), O_RDONLY | O_CLOEXEC)),
        net_ns(open((proc + "net").c_str(), O_RDONLY | O_CLOEXEC));
    if (!user_ns || !net_ns) return "cannot open the namespaces of the sandbox's pid 1: " + std::string(std::strerror(errno));
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
    pasta_ready_ = actionhost::common::io::UniqueFd(ready[0]);
    const actionhost::common::io::UniqueFd ready_w(ready[1]);
    // In the foreground, pasta writes its pid to --pid once it is initialised: through a pipe, that line
    // is the moment the namespace is connected. It stays our child, killed with us (die_with_parent) and
    // by end(). (In the background, with a namespace given as a descriptor, it outlived every sandbox.)
    const std::string fd_dir = "/proc/self/fd/";
    std::vector<std::string> pasta = {"pasta", "--foreground", "--pid", fd_dir + std::to_string(ready_w.get()), "--config-net",
                                      "--netns", fd_dir + std::to_string(net_ns.get()),
                                      "--userns", fd_dir + std::to_string(user_ns.get()),
                                      "-t", "none", "-u", "none", "-T", "none", "-U", "none", "--no-map-gw",
                                      "--dns-forward", kSandboxDnsAddress, "--quiet"};
    // pasta drops to "nobody" when started as root, who may not enter a namespace of root's: root's
    // sandboxes keep it root (it confines itself: namespaces of its own, seccomp, no capabilities left
    // once the tap is made; see docs/security.md).
    if (geteuid() == 0) pasta.insert(pasta.end(), {"--runas", "0:0"});
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    try {
        // pasta first: it is the longer of the two (it zeroes ~30 MB of tables), the filter is waited for.
        SpawnSpec spec;
        spec.program = "pasta";
        spec.argv = pasta;
        spec.use_pty = false;
        spec.out = Stream::inherit();  // what it says (only trouble, --quiet) goes to the sandbox's log
        spec.err = Stream::to_stdout();
        spec.die_with_parent = true;
        spec.keep_fds = {user_ns.get(), net_ns.get(), ready_w.get()};
        const char *path = std::getenv("PATH");
        spec.search_path = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
        auto child = ChildProcess::spawn(spec);
        if (!child) throw std::runtime_error("cannot run pasta: " + child.error().message);
        pasta_ = std::move(child).value();
        auto filter = start(helper_, {helper_, "--pid", std::to_string(pid1), "--ruleset", ruleset_});
        return wait_for(*filter, "the egress filter (ah-sandbox-net)", deadline_);
    } catch (const std::exception &e) {
        return e.what();
    }
}

std::string UserModeNetwork::finish() {
    if (!pasta_ || !pasta_ready_) return "pasta was not started";
    const std::string name = "pasta (user-mode networking, Debian's passt package)";
    char line[32];
    ssize_t n = -1;
    for (int round = 0; round < 1000; ++round) {  // bounded: each round ends in data, EOF, an error or the deadline
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{pasta_ready_.get(), POLLIN, 0};
        const int r = poll(&p, 1, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n = read(pasta_ready_.get(), line, sizeof line);
        if (n < 0 && errno == EINTR) continue;
        break;
    }
    pasta_ready_ = {};
    if (n > 0) return "";
    // No pid line: it failed (what it said is in the sandbox's log) or did not finish in time.
    if (const auto status = pasta_->wait(std::chrono::milliseconds(n == 0 ? 2000 : 1)))
        return name + " failed (" + status->describe() + ")";
    pasta_->terminate(std::chrono::milliseconds(100));
    return name + " did not finish within 20 s";
}

void UserModeNetwork::end() {
    if (!pasta_) return;
    // SIGKILL, not waited for: pasta keeps nothing worth a clean exit, and its exit removes the tap
    // device (the kernel's network teardown, 20-50 ms here) which no one needs to wait for. Until
    // ah-sandbox-init exits it is our zombie, then init's.
    pasta_->signal(SIGKILL);
    pasta_->release();
    pasta_.reset();
}

void UserModeNetwork::change(pid_t pid1, const EgressPolicy &next) {
    const std::string update = egress_ruleset_update(machine_, next);  // std::invalid_argument before anything runs
    run_to_end(helper_, {helper_, "--pid", std::to_string(pid1), "--ruleset", update}, "the egress filter (ah-sandbox-net)");
    policy_ = next;
}

RefusalLog UserModeNetwork::refusals(pid_t pid1) const {
    return refusal_log(run_to_end(helper_, {helper_, "--pid", std::to_string(pid1), "--list", "--json"}, "the egress filter's listing (ah-sandbox-net)"));
}

}  // namespace sandbox
