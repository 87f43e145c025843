// What the operations features cost an action on the `sandbox` backend, each against the same sandbox
// without them, measured in one run (figures only: it never fails on time):
//   - `echo hi` with the audit trail (two records through the supervisor, hash-chained, per action)
//     vs `sandbox.audit = false`;
//   - `echo hi` with `[security] deny_commands` (ten RE2 patterns checked before the action) vs none;
//   - `echo hi` with both, vs neither;
//   - a scrape of GET /metrics (every family, the cgroup figures read) vs GET /alive on the same host.
// The action counters and histograms are always on (a relaxed atomic add each), so they are inside every
// figure here. A policy module in its worker process is not measured here: it needs a module built out
// of tree (tests/abi/out_of_tree_policy).
//   ah_bench_operations [iterations=300]
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include <actionhost/common/json_io.hpp>

#include "runtime_harness.hpp"
#include "support/stats.hpp"

using namespace actionhost;
using namespace actionhost::bench;

namespace {

const char *const kRules =
    R"(["^rm -rf /$", "curl .*\\| *sh", "wget .*\\| *sh", "mkfs", "dd if=/dev/zero of=/dev/", ":\\(\\)\\{ *:\\|:& *\\};:", "chmod -R 777 /", "shutdown", "reboot", "nc -l"])";

Figures echo_with(int n, const std::function<void(client::Config &)> &configure) {
    auto s = runtimes_test::start_runtime("sandbox", configure);
    return measure(n, [&] {
        if (const auto obs = runtimes_test::run(*s->runtime, "echo hi"); obs.value("content", "") != "hi")
            std::printf("echo hi answered %s\n", common::dump_json(obs).c_str());
    }, 20);
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 300;
    const auto plain = [](client::Config &c) { c.set("sandbox.audit", false); };
    const Figures bare = echo_with(n, plain);
    print_row("echo hi, no audit trail, no policy (floor)", bare);
    const Figures audited = echo_with(n, [](client::Config &) {});
    print_row("echo hi, audit trail (default)", audited);
    const Figures ruled = echo_with(n, [&](client::Config &c) {
        plain(c);
        c.set("security.deny_commands", nlohmann::json::parse(kRules));
    });
    print_row("echo hi, ten deny_commands rules", ruled);
    const Figures both = echo_with(n, [&](client::Config &c) { c.set("security.deny_commands", nlohmann::json::parse(kRules)); });
    print_row("echo hi, audit trail and rules", both);
    print_ratio("echo hi, audit trail vs none", audited, bare);
    print_ratio("echo hi, rules vs none", ruled, bare);
    print_ratio("echo hi, audit trail and rules vs neither", both, bare);

    auto s = runtimes_test::start_runtime("sandbox");
    runtimes_test::run(*s->runtime, "echo hi");
    client::WireClient &wire = s->runtime->wire();
    const Figures alive = measure(n, [&] { wire.alive(); }, 20);
    const Figures scrape = measure(n, [&] {
        if (wire.metrics().find("actionhost_actions_total") == std::string::npos) std::printf("GET /metrics: no counters\n");
    }, 20);
    print_row("GET /alive (floor)", alive);
    print_row("GET /metrics", scrape);
    print_ratio("a /metrics scrape vs /alive", scrape, alive);
    return 0;
}
