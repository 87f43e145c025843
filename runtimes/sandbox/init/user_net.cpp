#include "user_net.hpp"

#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <unistd.h>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/json_write.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/process/shell_identity.hpp>
#include <cerrno>
#include <cstring>
#include <strings.h>
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

// What to run as pasta. Debian's pasta (a link to passt) re-executes itself as passt.avx2 when the CPU
// has AVX2 — a second exec on every start (~3 ms of its ~17 ms here); that build, run as "pasta" (its
// mode comes from argv[0]), is started directly when it is there. Else "pasta", found on PATH.
std::string pasta_program() {
    const std::string pasta = actionhost::common::find_program("pasta", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
    if (pasta.empty()) return "pasta";  // the spawn says it is missing
    const std::string avx2 = pasta.substr(0, pasta.rfind('/')) + "/passt.avx2";
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && access(avx2.c_str(), X_OK) == 0 ? avx2 : pasta;
}

// The policy with every entry normalised ("10.1.2.3" → "10.1.2.3/32"): entries compare as text after.
EgressPolicy normalised(const EgressPolicy &p) {
    EgressPolicy out{{}, {}, p.allow_only || !p.allow.empty()};
    for (const auto &a : p.allow) out.allow.push_back(normalise_entry(a));
    for (const auto &d : p.deny) out.deny.push_back(normalise_entry(d));
    return out;
}

// One line read from `fd` (without its newline), gathered in `buffer` as it comes: what pasta writes
// into its --pid pipe, what the guard answers. nullopt at the end of `fd` or at the deadline.
std::optional<std::string> read_line(int fd, std::string &buffer, std::chrono::steady_clock::time_point deadline) {
    for (int round = 0; round < 100'000; ++round) {
        if (const size_t nl = buffer.find('\n'); nl != std::string::npos) {
            std::string line = buffer.substr(0, nl);
            buffer.erase(0, nl + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) return std::nullopt;
        pollfd p{fd, POLLIN, 0};
        const int r = poll(&p, 1, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return std::nullopt;
        char chunk[65536];
        const ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return std::nullopt;
        if (buffer.size() > (16u << 20)) return std::nullopt;  // no line is that long
        buffer.append(chunk, static_cast<size_t>(n));
    }
    return std::nullopt;
}

}  // namespace

UserModeNetwork::UserModeNetwork(const EgressPolicy &policy, std::vector<std::string> resolvers, bool intercept)
    : policy_(normalised(policy)), machine_(machine_addresses()),
      resolvers_(resolvers.empty() ? std::vector<std::string>{kSandboxDnsAddress} : std::move(resolvers)), intercept_(intercept),
      ruleset_(egress_ruleset(machine_, policy_, resolvers_, intercept_)),
      helper_(program_dir() + "/ah-sandbox-net") {
    if (access(helper_.c_str(), X_OK) != 0) throw std::runtime_error("network = \"internet\" needs " + helper_ + ", which is missing");
    // pasta opens the tun device as this user: said here rather than as pasta's "Failed to open tun socket".
    if (access("/dev/net/tun", R_OK | W_OK) != 0)
        throw std::runtime_error(std::string("network = \"internet\" needs /dev/net/tun, readable and writable by this user (") +
                                 std::strerror(errno) + "; Debian makes it mode 0666, this machine does not)");
}

UserModeNetwork::~UserModeNetwork() { end(); }

std::string UserModeNetwork::begin(pid_t pid1, std::string proxy_config) {
    struct Wipe {
        std::string &text;
        ~Wipe() { explicit_bzero(text.data(), text.size()); }
    } wipe{proxy_config};
    if (intercept_ != !proxy_config.empty()) return "the egress proxy's configuration does not go with the filter";
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
        spec.program = pasta_program();
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
        // The filter, loaded by ah-sandbox-net, which then stays on as the sandbox's resolver guard.
        std::vector<std::string> argv = {helper_, "--pid", std::to_string(pid1), "--ruleset", ruleset_, "--guard"};
        for (const auto &r : resolvers_) argv.insert(argv.end(), {"--resolver", r});
        for (const auto &n : name_entries(policy_.allow)) argv.insert(argv.end(), {"--allow-name", n});
        for (const auto &n : name_entries(policy_.deny)) argv.insert(argv.end(), {"--deny-name", n});
        if (policy_.allow_only) argv.push_back("--allow-only");
        if (intercept_) argv.push_back("--proxy");
        SpawnSpec guard;
        guard.program = helper_;
        guard.argv = argv;
        guard.use_pty = false;
        guard.in = Stream::pipe();   // its requests; their end is its end (ah-sandbox-init is gone)
        guard.out = Stream::pipe();  // its answers, one JSON line each
        guard.err = Stream::inherit();
        auto spawned = ChildProcess::spawn(guard);
        if (!spawned) throw std::runtime_error("cannot run " + helper_ + ": " + spawned.error().message);
        guard_ = std::move(spawned).value();
        // The secrets and the CA's key: through the pipe, never on a command line.
        if (intercept_) {
            if (!guard_->write_all(proxy_config, deadline_) || !guard_->write_all("\n", deadline_))
                return "the egress proxy (ah-sandbox-net) did not take its configuration";
        }
        const auto ready = read_line(guard_->output_fd(), guard_buffer_, deadline_);
        if (ready && nlohmann::json::parse(*ready, nullptr, false).value("ready", false)) return "";
        if (const auto status = guard_->wait(std::chrono::milliseconds(2000)))
            return "the egress filter and resolver guard (ah-sandbox-net) failed (" + status->describe() + "; its words are in the log)";
        return "the egress filter and resolver guard (ah-sandbox-net) did not start within 20 s";
    } catch (const std::exception &e) {
        return e.what();
    }
}

std::string UserModeNetwork::finish() {
    if (!pasta_ || !pasta_ready_) return "pasta was not started";
    const std::string name = "pasta (user-mode networking, Debian's passt package)";
    std::string pid_line;
    const bool ready = read_line(pasta_ready_.get(), pid_line, deadline_).has_value();
    pasta_ready_ = {};
    if (ready) return "";
    // No pid line: it failed (what it said is in the sandbox's log) or did not finish in time.
    if (const auto status = pasta_->wait(std::chrono::milliseconds(2000))) return name + " failed (" + status->describe() + ")";
    pasta_->terminate(std::chrono::milliseconds(100));
    return name + " did not finish within 20 s";
}

void UserModeNetwork::end() {
    if (guard_) {
        guard_->signal(SIGKILL);
        guard_->release();
        guard_.reset();
    }
    if (!pasta_) return;
    // SIGKILL, not waited for: pasta keeps nothing worth a clean exit, and its exit removes the tap
    // device (the kernel's network teardown, 20-50 ms here) which no one needs to wait for. Until
    // ah-sandbox-init exits it is our zombie, then init's.
    pasta_->signal(SIGKILL);
    pasta_->release();
    pasta_.reset();
}

nlohmann::json UserModeNetwork::ask_guard(const nlohmann::json &request) const {
    if (!guard_) throw std::runtime_error("the sandbox's resolver guard is not running");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    if (!guard_->write_all(actionhost::common::dump_json(request) + "\n", deadline))
        throw std::runtime_error("the sandbox's resolver guard (ah-sandbox-net) is gone");
    const auto line = read_line(guard_->output_fd(), guard_buffer_, deadline);
    if (!line) throw std::runtime_error("the sandbox's resolver guard (ah-sandbox-net) did not answer");
    auto reply = nlohmann::json::parse(*line, nullptr, false);
    if (!reply.is_object()) throw std::runtime_error("the sandbox's resolver guard answered something unexpected");
    if (reply.contains("error")) throw std::runtime_error("the egress filter: " + reply.value("error", std::string()));
    return reply;
}

void UserModeNetwork::change(const EgressPolicy &next) {
    const std::vector<std::string> allow_names = name_entries(next.allow), deny_names = name_entries(next.deny);
    const bool names_changed = allow_names != name_entries(policy_.allow) || deny_names != name_entries(policy_.deny);
    // std::invalid_argument before anything runs
    const std::string update = egress_ruleset_update(machine_, next, resolvers_, names_changed, intercept_);
    ask_guard({{"nft", update}, {"allow_names", allow_names}, {"deny_names", deny_names}, {"allow_only", next.allow_only}});
    policy_ = next;
}

bool UserModeNetwork::refresh_machine_addresses() {
    std::vector<std::string> now = machine_addresses();
    if (now == machine_) return false;
    const std::string update = egress_ruleset_update(now, policy_, resolvers_, false, intercept_);
    ask_guard({{"nft", update}, {"allow_names", name_entries(policy_.allow)}, {"deny_names", name_entries(policy_.deny)},
               {"allow_only", policy_.allow_only}});
    machine_ = std::move(now);
    return true;
}

RefusalLog UserModeNetwork::refusals() const {
    return refusal_log(ask_guard({{"list", true}}).value("listing", std::string()));
}

}  // namespace sandbox
