// The egress filter's rules (runtimes/sandbox/init/egress_rules.cpp): what they refuse and allow, and
// that real nftables accepts them, loaded by ah-sandbox-net into a network namespace made here.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "egress_rules.hpp"

using namespace sandbox;

TEST(SandboxEgressRules, CidrsAreCheckedAndNormalised) {
    EXPECT_EQ(normalise_cidr("10.1.2.3"), "10.1.2.3/32");
    EXPECT_EQ(normalise_cidr("10.1.2.3/8"), "10.0.0.0/8");
    EXPECT_EQ(normalise_cidr("2001:db8::1/32"), "2001:db8::/32");
    EXPECT_EQ(normalise_cidr("fd00::2"), "fd00::2/128");
    EXPECT_EQ(normalise_cidr("0.0.0.0/0"), "0.0.0.0/0");
    EXPECT_EQ(normalise_entry("PyPI.org."), "pypi.org");
    EXPECT_EQ(normalise_entry("10.1.2.3"), "10.1.2.3/32");
    EXPECT_EQ(name_entries({"10.0.0.0/8", "pypi.org", "*.GitHub.com"}), (std::vector<std::string>{"pypi.org", "*.github.com"}));
    for (const char *bad : {"pypi.org", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/-1", "1.2.3", "", "10.0.0.0/8 }; flush ruleset"})
        EXPECT_THROW(normalise_cidr(bad), std::invalid_argument) << bad;
}

TEST(SandboxEgressRules, TheMachineAndThePrivateRangesAreRefusedByDefault) {
    const std::string r = egress_ruleset({"192.0.2.2", "fd00::2", "127.0.0.1"}, {});
    for (const char *range : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16",
                              "127.0.0.0/8", "192.0.2.2/32", "fc00::/7", "fe80::/10", "::ffff:0:0/96", "fd00::2/128"})
        EXPECT_NE(r.find(range), std::string::npos) << range << " missing from\n" << r;
    // The sandbox's own loopback (its resolver, the guard) comes before any refusal, the guard's marked
    // DNS to its upstream (169.254.1.1) before the refused ranges it lies in, then any other DNS refused.
    const size_t output = r.find("chain output");
    ASSERT_NE(output, std::string::npos) << r;
    EXPECT_LT(r.find("oifname \"lo\" accept", output), r.find("jump refuse", output));
    const size_t guard = r.find("meta mark 0x61680053 meta l4proto { tcp, udp } th dport 53 ip daddr { 169.254.1.1/32 } accept", output);
    ASSERT_NE(guard, std::string::npos) << r;
    EXPECT_LT(guard, r.find("169.254.0.0/16", output));
    EXPECT_LT(guard, r.find("th dport { 53, 853 } jump refuse", output));
    EXPECT_EQ(r.find("meta nfproto { ipv4, ipv6 }"), std::string::npos) << "no allow list: the rest goes out";
    // Every refusal is noted without a verdict of its own, then counted and rejected.
    const size_t refuse = r.find("chain refuse");
    ASSERT_NE(refuse, std::string::npos) << r;
    EXPECT_LT(r.find("add @refused4", refuse), r.find("counter name refused reject", refuse));
}

TEST(SandboxEgressRules, AnAllowListLetsOnlyItsEntriesOutAndDenyComesFirst) {
    const std::string r = egress_ruleset({"192.0.2.2"}, {{"10.9.0.0/16", "2001:db8::/32"}, {"10.9.9.9"}});
    const size_t deny = r.find("ip daddr { 10.9.9.9/32 }"), allow = r.find("ip daddr { 10.9.0.0/16 } accept"),
                 rest = r.find("meta nfproto { ipv4, ipv6 } jump refuse");
    ASSERT_NE(deny, std::string::npos) << r;
    ASSERT_NE(allow, std::string::npos) << r;
    ASSERT_NE(rest, std::string::npos) << r;
    EXPECT_LT(deny, allow);
    EXPECT_LT(allow, rest);
    EXPECT_THROW(egress_ruleset({}, {{"github.*"}, {}}), std::invalid_argument);
    EXPECT_THROW(egress_ruleset({}, {{}, {"exa mple.org"}}), std::invalid_argument);
}

// The machine is refused before any allow entry; an allow entry opens a refused range only when it lies
// within it; one reaching beyond (0.0.0.0/0) comes after the refused ranges; the resolver is open unless
// denied; an allow-only policy stays so with its list emptied.
TEST(SandboxEgressRules, TheMachineStaysRefusedAndBroadAllowsOpenOnlyPublicSpace) {
    const std::string r = egress_ruleset({"192.0.2.2", "172.17.0.1"}, {{"192.0.2.0/24", "172.16.0.0/12", "0.0.0.0/0"}, {}});
    const size_t machine = r.find("ip daddr { 127.0.0.0/8, 192.0.2.2/32, 172.17.0.1/32 } jump refuse"),
                 inside = r.find("ip daddr { 172.16.0.0/12 } accept"), refused = r.find("ip daddr { 0.0.0.0/8, 10.0.0.0/8"),
                 broad = r.find("ip daddr { 192.0.2.0/24, 0.0.0.0/0 } accept"), rest = r.find("meta nfproto { ipv4, ipv6 } jump refuse");
    ASSERT_NE(machine, std::string::npos) << r;
    ASSERT_NE(inside, std::string::npos) << r;
    ASSERT_NE(refused, std::string::npos) << r;
    ASSERT_NE(broad, std::string::npos) << r;
    ASSERT_NE(rest, std::string::npos) << r;
    EXPECT_LT(machine, inside);
    EXPECT_LT(inside, refused);
    EXPECT_LT(refused, broad);
    EXPECT_LT(broad, rest);
    // A deny of the resolver closes DNS: deny comes before its accept.
    const std::string d = egress_ruleset({}, {{}, {"169.254.1.1"}});
    EXPECT_LT(d.find("ip daddr { 169.254.1.1/32 } jump refuse"), d.find("th dport 53 accept")) << d;
    // v4-mapped and loopback IPv6 are the machine too, whatever is allowed.
    const std::string six = egress_ruleset({"fd00::2"}, {{"::/0"}, {}});
    EXPECT_LT(six.find("ip6 daddr { ::1/128, ::ffff:0:0/96, fd00::2/128 } jump refuse"), six.find("ip6 daddr { ::/0 } accept")) << six;
    // Allow-only with every entry removed: nothing goes out (never the internet).
    EgressPolicy emptied;
    emptied.allow_only = true;
    EXPECT_NE(egress_ruleset({}, emptied).find("meta nfproto { ipv4, ipv6 } jump refuse"), std::string::npos);
    EXPECT_EQ(egress_ruleset({}, {}).find("meta nfproto { ipv4, ipv6 } jump refuse"), std::string::npos);
}

// The update of a running sandbox's policy: its output chain flushed and refilled in one transaction,
// nothing else of the table touched (counter and log kept); a bad entry throws before any text exists.
TEST(SandboxEgressRules, AnUpdateReplacesOnlyTheOutputChain) {
    const std::string u = egress_ruleset_update({"192.0.2.2"}, {{}, {"203.0.113.0/24"}});
    EXPECT_EQ(u.rfind("flush chain inet actionhost_egress output\n", 0), 0u) << u;
    EXPECT_NE(u.find("add rule inet actionhost_egress output ip daddr { 203.0.113.0/24 } jump refuse"), std::string::npos) << u;
    EXPECT_EQ(u.find("table inet actionhost_egress {"), std::string::npos) << u;
    EXPECT_EQ(u.find("delete"), std::string::npos) << u;
    EXPECT_EQ(u.find("type filter hook"), std::string::npos) << "the chain keeps its hook: " << u;
    EXPECT_THROW(egress_ruleset_update({}, {{}, {"10.0.0.0/8 } ; flush ruleset"}}), std::invalid_argument);
}

// With secrets: the intercept sets and a nat chain ahead of the filter that sends TCP 443 to their
// addresses to the proxy (its own marked connections pass), and the filter lets the redirected connection
// reach the proxy on the loopback; an update keeps that rule. Without secrets: none of it (no conntrack).
TEST(SandboxEgressRules, SecretsAddTheInterceptChainAheadOfTheFilter) {
    const std::string plain = egress_ruleset({"192.0.2.2"}, {});
    EXPECT_EQ(plain.find("intercept"), std::string::npos) << plain;
    EXPECT_EQ(plain.find("ct status"), std::string::npos) << plain;
    const std::string r = egress_ruleset({"192.0.2.2"}, {}, {"169.254.1.1"}, true);
    for (const char *line : {"set intercept4 { type ipv4_addr; flags timeout; size 65536; }", "set intercept6 { type ipv6_addr; flags timeout; size 65536; }",
                             "type nat hook output priority -100; policy accept;", "ct status dnat tcp dport 61443 accept"})
        EXPECT_NE(r.find(line), std::string::npos) << line << "\n" << r;
    const size_t chain = r.find("chain intercept"), mark = r.find("meta mark 0x61680050 return", chain),
                 v4 = r.find("ip daddr @intercept4 tcp dport 443 redirect to :61443", chain),
                 v6 = r.find("ip6 daddr @intercept6 tcp dport 443 redirect to :61443", chain);
    for (size_t at : {chain, mark, v4, v6}) ASSERT_NE(at, std::string::npos) << r;
    EXPECT_LT(mark, v4) << "the proxy's own connection would be sent back to it";
    // The redirected connection is let through before the machine's loopback range is refused.
    EXPECT_LT(r.find("ct status dnat"), r.find("127.0.0.0/8")) << r;
    const std::string u = egress_ruleset_update({"192.0.2.2"}, {{"203.0.113.0/24"}, {}}, {"169.254.1.1"}, true, true);
    EXPECT_NE(u.find("add rule inet actionhost_egress output ct status dnat tcp dport 61443 accept"), std::string::npos) << u;
    EXPECT_EQ(u.find("flush set inet actionhost_egress intercept"), std::string::npos) << "the secrets' addresses outlive a policy change";
}

// Names are the guard's: the ruleset has their sets, lets a name's addresses through only after every
// refused range (a name never opens the machine or a private range) and refuses a deny name's first.
TEST(SandboxEgressRules, NamesBecomeSetsAfterTheRefusedRangesAndDeniedNamesBeforeThem) {
    const std::string r = egress_ruleset({"192.0.2.2"}, {{"pypi.org", "203.0.113.0/24"}, {"*.bad.test"}, true}, {"198.51.100.53"});
    for (const char *set : {"set names_allowed4 { type ipv4_addr; flags timeout; size 65536; }", "set names_denied6 { type ipv6_addr; flags timeout; size 65536; }"})
        EXPECT_NE(r.find(set), std::string::npos) << set << "\n" << r;
    EXPECT_EQ(r.find("pypi"), std::string::npos) << "a name in nft's rules:\n" << r;
    EXPECT_EQ(r.find("bad.test"), std::string::npos) << r;
    const size_t output = r.find("chain output");
    const size_t upstream = r.find("th dport 53 ip daddr { 198.51.100.53/32 } accept", output), other_dns = r.find("th dport { 53, 853 } jump refuse", output),
                 denied = r.find("ip daddr @names_denied4 jump refuse", output), ranges = r.find("10.0.0.0/8", output),
                 allowed = r.find("ip daddr @names_allowed4 accept", output), rest = r.find("meta nfproto { ipv4, ipv6 } jump refuse", output);
    for (size_t at : {upstream, other_dns, denied, ranges, allowed, rest}) ASSERT_NE(at, std::string::npos) << r;
    EXPECT_LT(upstream, other_dns);
    EXPECT_LT(other_dns, denied);
    EXPECT_LT(denied, ranges);
    EXPECT_LT(ranges, allowed);
    EXPECT_LT(allowed, rest);
    EXPECT_LT(r.find("192.0.2.2/32", output), allowed) << "the machine comes first";
    // A change empties the name sets (the guard pins what the new names resolve to).
    const std::string u = egress_ruleset_update({"192.0.2.2"}, {{"pypi.org"}, {}, true});
    EXPECT_NE(u.find("flush set inet actionhost_egress names_allowed4"), std::string::npos) << u;
    // A change of CIDRs alone keeps what names opened.
    const std::string cidrs = egress_ruleset_update({"192.0.2.2"}, {{"pypi.org"}, {"203.0.113.0/24"}, true}, {"169.254.1.1"}, false);
    EXPECT_EQ(cidrs.find("flush set"), std::string::npos) << cidrs;
}

// The log as nftables' JSON lists it: the counter and both sets' elements with their packets; anything
// that is not that JSON is an error, never an empty log.
TEST(SandboxEgressRules, TheRefusalLogIsReadFromNftablesJson) {
    const std::string listed = R"({"nftables": [{"metainfo": {"version": "1.0.6"}},
      {"table": {"family": "inet", "name": "actionhost_egress", "handle": 1}},
      {"counter": {"family": "inet", "name": "refused", "table": "actionhost_egress", "handle": 2, "packets": 7, "bytes": 389}},
      {"set": {"family": "inet", "name": "refused4", "table": "actionhost_egress", "type": ["ipv4_addr", "inet_proto", "inet_service"],
               "elem": [{"elem": {"val": {"concat": ["10.1.2.3", "tcp", 80]}, "counter": {"packets": 4, "bytes": 240}}},
                        {"elem": {"val": {"concat": ["10.7.7.7", "udp", 53]}, "counter": {"packets": 1, "bytes": 29}}}]}},
      {"set": {"family": "inet", "name": "refused6", "table": "actionhost_egress", "type": ["ipv6_addr", "inet_proto", "inet_service"]}}]})";
    const RefusalLog log = refusal_log(listed);
    EXPECT_EQ(log.refused, 7u);
    ASSERT_EQ(log.destinations.size(), 2u);
    EXPECT_EQ(log.destinations[0].address, "10.1.2.3");
    EXPECT_EQ(log.destinations[0].protocol, "tcp");
    EXPECT_EQ(log.destinations[0].port, 80);
    EXPECT_EQ(log.destinations[0].packets, 4u);
    EXPECT_EQ(log.destinations[1].protocol, "udp");
    EXPECT_THROW(refusal_log("table inet actionhost_egress {"), std::runtime_error);
    EXPECT_THROW(refusal_log("{}"), std::runtime_error);
}

namespace {

// Runs `command` and returns its exit status and output.
std::pair<int, std::string> run(const std::string &command) {
    std::string out;
    FILE *p = popen((command + " 2>&1").c_str(), "r");
    if (p == nullptr) return {-1, ""};
    std::array<char, 4096> buf{};
    for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
    const int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

// Real nftables: the ruleset loads into a fresh user and network namespace (as a sandbox's are), is
// replaced by an update (a policy change), and lists its counter; overlapping entries (a machine address
// inside a refused range) are no error.
TEST(SandboxEgressRules, RealNftablesLoadsTheRulesetIntoASandboxLikeNamespace) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t holder = fork();
    ASSERT_GE(holder, 0);
    if (holder == 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) _exit(3);
        (void)!write(ready[1], "r", 1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char r = 0;
    const bool in_namespace = read(ready[0], &r, 1) == 1;
    close(ready[0]);
    if (!in_namespace) {
        kill(holder, SIGKILL);
        waitpid(holder, nullptr, 0);
        GTEST_SKIP() << "no unprivileged user namespaces here";
    }
    const std::string net = std::string(AH_SANDBOX_NET) + " --pid " + std::to_string(holder);
    const std::string rules = egress_ruleset({"10.1.2.3", "192.0.2.2", "fd00::2", "::1"}, {});
    auto quote = [](const std::string &s) {
        std::string q = "'";
        for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    };
    auto [rc1, out1] = run(net + " --ruleset " + quote(rules));
    EXPECT_EQ(rc1, 0) << out1 << "\n" << rules;
    // A change is an update of the table the first load made.
    auto [rc2, out2] = run(net + " --ruleset " + quote(egress_ruleset_update({"192.0.2.2"}, {{"198.51.100.0/24"}, {}})));
    EXPECT_EQ(rc2, 0) << out2;
    auto [rc3, listed] = run(net + " --list");
    EXPECT_EQ(rc3, 0) << listed;
    EXPECT_NE(listed.find("counter refused"), std::string::npos) << listed;
    EXPECT_NE(listed.find("198.51.100.0/24"), std::string::npos) << "the second load replaced the first:\n" << listed;
    EXPECT_EQ(listed.find("10.1.2.3"), std::string::npos) << listed;
    // A live change (as ahctl net makes it), then the listing nftables gives in JSON, read as the log.
    auto [rc5, out5] = run(net + " --ruleset " + quote(egress_ruleset_update({"192.0.2.2"}, {{}, {"203.0.113.0/24"}})));
    EXPECT_EQ(rc5, 0) << out5;
    auto [rc6, as_json] = run(net + " --list --json");
    EXPECT_EQ(rc6, 0) << as_json;
    EXPECT_NE(as_json.find("203.0.113.0"), std::string::npos) << as_json;
    EXPECT_EQ(as_json.find("198.51.100.0"), std::string::npos) << "the update replaced the rules:\n" << as_json;
    EXPECT_NO_THROW(refusal_log(as_json)) << as_json;
    auto [rc4, out4] = run(net + " --ruleset 'this is not nft'");
    // With secrets, the nat chain loads too (nftables' nat in a user namespace's network namespace).
    auto [rc7, out7] = run(net + " --ruleset " + quote("delete table inet actionhost_egress\n" + egress_ruleset({"192.0.2.2"}, {}, {"169.254.1.1"}, true)));
    EXPECT_EQ(rc7, 0) << out7;
    auto [rc8, out8] = run(net + " --ruleset " + quote(egress_ruleset_update({"192.0.2.2"}, {{"198.51.100.0/24"}, {}}, {"169.254.1.1"}, true, true)));
    EXPECT_EQ(rc8, 0) << out8;
    auto [rc9, listed9] = run(net + " --list");
    EXPECT_NE(listed9.find("redirect to :61443"), std::string::npos) << listed9;
    EXPECT_NE(rc4, 0);
    EXPECT_NE(out4.find("nftables refused"), std::string::npos) << out4;
    kill(holder, SIGKILL);
    waitpid(holder, nullptr, 0);
}
