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
    for (const char *bad : {"pypi.org", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/-1", "1.2.3", "", "10.0.0.0/8 }; flush ruleset"})
        EXPECT_THROW(normalise_cidr(bad), std::invalid_argument) << bad;
}

TEST(SandboxEgressRules, TheMachineAndThePrivateRangesAreRefusedByDefault) {
    const std::string r = egress_ruleset({"192.0.2.2", "fd00::2", "127.0.0.1"}, {});
    for (const char *range : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16",
                              "127.0.0.0/8", "192.0.2.2/32", "fc00::/7", "fe80::/10", "::ffff:0:0/96", "fd00::2/128"})
        EXPECT_NE(r.find(range), std::string::npos) << range << " missing from\n" << r;
    // The sandbox's own loopback and its resolver come before any refusal.
    EXPECT_LT(r.find("oifname \"lo\" accept"), r.find("reject"));
    EXPECT_LT(r.find("th dport 53 accept"), r.find("reject"));
    EXPECT_EQ(r.find("meta nfproto"), std::string::npos) << "no allow list: the rest goes out";
}

TEST(SandboxEgressRules, AnAllowListLetsOnlyItsEntriesOutAndDenyComesFirst) {
    const std::string r = egress_ruleset({"192.0.2.2"}, {{"10.9.0.0/16", "2001:db8::/32"}, {"10.9.9.9"}});
    const size_t deny = r.find("ip daddr { 10.9.9.9/32 }"), allow = r.find("ip daddr { 10.9.0.0/16 } accept"),
                 rest = r.find("meta nfproto { ipv4, ipv6 } counter name refused reject");
    ASSERT_NE(deny, std::string::npos) << r;
    ASSERT_NE(allow, std::string::npos) << r;
    ASSERT_NE(rest, std::string::npos) << r;
    EXPECT_LT(deny, allow);
    EXPECT_LT(allow, rest);
    EXPECT_THROW(egress_ruleset({}, {{"*.github.com"}, {}}), std::invalid_argument);
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

// Real nftables: the ruleset loads into a fresh user and network namespace (as a sandbox's are), loads
// again over itself (a policy change), and lists its counter; overlapping entries (a machine address
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
    auto [rc2, out2] = run(net + " --ruleset " + quote(egress_ruleset({"192.0.2.2"}, {{"198.51.100.0/24"}, {}})));
    EXPECT_EQ(rc2, 0) << out2;
    auto [rc3, listed] = run(net + " --list");
    EXPECT_EQ(rc3, 0) << listed;
    EXPECT_NE(listed.find("counter refused"), std::string::npos) << listed;
    EXPECT_NE(listed.find("198.51.100.0/24"), std::string::npos) << "the second load replaced the first:\n" << listed;
    EXPECT_EQ(listed.find("10.1.2.3"), std::string::npos) << listed;
    auto [rc4, out4] = run(net + " --ruleset 'this is not nft'");
    EXPECT_NE(rc4, 0);
    EXPECT_NE(out4.find("nftables refused"), std::string::npos) << out4;
    kill(holder, SIGKILL);
    waitpid(holder, nullptr, 0);
}
