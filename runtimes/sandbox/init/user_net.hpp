// `network = "internet"`: the sandbox keeps its own network namespace and reaches the internet through
// user-mode networking, never the machine (docs/runtimes.md, docs/security.md). ah-sandbox-init (P, outside)
// connects the two once pid 1 exists and before pid 1 starts anything:
//   - pasta (Debian's passt) joins the sandbox's user and network namespaces, makes its tap interface
//     with the machine's addresses and routes, and carries TCP, UDP and ping over sockets of the machine.
//     Every port forwarding is off both ways (-t/-u/-T/-U none: with pasta's default "auto" the sandbox
//     would reach the machine's loopback ports), the gateway is not mapped to the machine (--no-map-gw),
//     and DNS sent to kSandboxDnsAddress goes to the machine's resolver (--dns-forward). It runs in the
//     foreground as P's child, says it is ready by writing its pid into a pipe (--pid), and ends with P
//     (end(), or the kernel's parent-death signal when P is killed).
//   - ah-sandbox-net loads the egress filter (egress_rules.hpp) into the namespace and stays on as the
//     sandbox's resolver guard (dns_guard.hpp), the only DNS there is inside; policy changes and the
//     refusal log go through it too (no process started per request). It ends when its stdin does.
// Both start at once, while pid 1 builds the root. pid 1 goes on (and starts the host) once the filter
// is loaded — never a process of the sandbox before its filter — while pasta may still be configuring
// the namespace; ah-sandbox-init then waits for pasta before it serves its control socket, which the
// backend asks before it calls the sandbox ready. A failure of either ends the sandbox.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>
#include <string>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/process/child_process.hpp>

#include "egress_rules.hpp"

namespace sandbox {

class UserModeNetwork {
  public:
    // Everything that can be checked before the namespaces exist: the policy's entries (std::invalid_argument,
    // kept normalised),
    // the helper beside this program, the machine's addresses.
    // `resolvers`: the guard's upstream resolvers (empty: pasta's forwarder to the machine's resolver).
    // `intercept`: the sandbox has secrets; its filter sends their hosts' HTTPS to the egress proxy.
    explicit UserModeNetwork(const EgressPolicy &policy, std::vector<std::string> resolvers = {}, bool intercept = false);
    // Starts connecting the namespaces of `pid1` (P's child) and waits for the filter and the guard: ""
    // once the filter is loaded and the guard listens, else what failed (~5 ms; at most 20 s).
    // `proxy_config` (with `intercept`): the egress proxy's configuration (one JSON line: net_main.cpp),
    // handed to the guard through its stdin and then wiped here.
    std::string begin(pid_t pid1, std::string proxy_config = "");
    // Waits for pasta, started by begin: "" once the namespace is connected, else what failed (at most
    // 20 s from begin).
    std::string finish();
    // Kills pasta and the guard (the sandbox is gone), without waiting for their exit. Also done by the
    // destructor.
    void end();
    ~UserModeNetwork();
    UserModeNetwork(const UserModeNetwork &) = delete;
    UserModeNetwork &operator=(const UserModeNetwork &) = delete;

    // The running sandbox's policy replaced by `next` (egress_ruleset_update: one transaction, counter
    // and log kept; the name sets emptied when the names change, the guard given the new names). std::invalid_argument for a
    // bad entry, std::runtime_error when the guard failed; the policy in force is then unchanged. Blocks
    // for the guard's answer (~1 ms; at most 20 s). Not from two threads at once.
    void change(const EgressPolicy &next);
    // The policy in force, every entry normalised (normalise_entry), so `next` in change() is too.
    const EgressPolicy &policy() const { return policy_; }
    // The refusal counter and log of the running sandbox. std::runtime_error when it cannot be read.
    RefusalLog refusals() const;
    // The machine's addresses read again (address_watch.hpp); when they changed, the filter refuses the
    // new list (one transaction, as change() makes). Returns whether they changed; std::runtime_error
    // when the guard failed (the filter then refuses the list it had). Not from two threads at once,
    // nor beside change().
    bool refresh_machine_addresses();

  private:
    // ah-sandbox-net as the resolver guard (dns_guard.hpp): a JSON line asked, a JSON line answered.
    nlohmann::json ask_guard(const nlohmann::json &request) const;

    std::unique_ptr<actionhost::common::ChildProcess> pasta_;
    std::unique_ptr<actionhost::common::ChildProcess> guard_;
    mutable std::string guard_buffer_;
    actionhost::common::io::UniqueFd pasta_ready_;  // read end of the pipe pasta writes its pid into
    std::chrono::steady_clock::time_point deadline_;
    EgressPolicy policy_;
    std::vector<std::string> machine_;
    std::vector<std::string> resolvers_;
    bool intercept_ = false;
    std::string ruleset_;
    std::string helper_;
};

}  // namespace sandbox
