// Domain names in the egress policy (runtimes/sandbox/init/name_rules.cpp): which entries are names,
// which are valid, what they match, and what the resolver guard does with a query.
#include <gtest/gtest.h>

#include <stdexcept>

#include "name_rules.hpp"

using namespace sandbox;

TEST(SandboxNameRules, NamesAreToldFromAddressesAndChecked) {
    for (const char *name : {"pypi.org", "*.github.com", "a-b_c.example", "xn--bcher-kva.example"}) EXPECT_TRUE(looks_like_name(name)) << name;
    for (const char *address : {"10.0.0.0/8", "2001:db8::1", "fd00::/7", "192.0.2.1"}) EXPECT_FALSE(looks_like_name(address)) << address;
    EXPECT_EQ(normalise_name_entry("PyPI.ORG."), "pypi.org");
    EXPECT_EQ(normalise_name_entry("*.GitHub.com"), "*.github.com");
    for (const char *bad : {"", ".", "*.", "*", "a..b", "github.*", "*.*.com", "a b.com", "a.com;flush ruleset", "ex}ample.com",
                            "-"})
        EXPECT_THROW(normalise_name_entry(bad), std::invalid_argument) << bad;
    EXPECT_THROW(normalise_name_entry(std::string(64, 'a') + ".com"), std::invalid_argument);
    EXPECT_THROW(normalise_name_entry(std::string(250, 'a').replace(60, 1, ".").replace(120, 1, ".").replace(180, 1, ".") + ".com"),
                 std::invalid_argument);
}

TEST(SandboxNameRules, AWildcardMatchesOnlyWhatIsBelowIt) {
    EXPECT_TRUE(name_matches("pypi.org", "pypi.org"));
    EXPECT_FALSE(name_matches("pypi.org", "files.pypi.org"));
    EXPECT_FALSE(name_matches("pypi.org", "notpypi.org"));
    EXPECT_TRUE(name_matches("*.github.com", "api.github.com"));
    EXPECT_TRUE(name_matches("*.github.com", "a.b.github.com"));
    EXPECT_FALSE(name_matches("*.github.com", "github.com"));
    EXPECT_FALSE(name_matches("*.github.com", "evilgithub.com"));
    EXPECT_FALSE(name_matches("*.github.com", "github.com.evil.net"));
}

TEST(SandboxNameRules, DenyWinsThenAllowThenTheAllowListDecides) {
    const std::vector<std::string> allow = {"*.example.com", "pypi.org"}, deny = {"bad.example.com"};
    EXPECT_EQ(name_verdict("bad.example.com", allow, deny, true), NameVerdict::Refuse);
    EXPECT_EQ(name_verdict("ok.example.com", allow, deny, true), NameVerdict::Pin);
    EXPECT_EQ(name_verdict("pypi.org", allow, deny, false), NameVerdict::Pin);
    EXPECT_EQ(name_verdict("other.net", allow, deny, true), NameVerdict::Drop);
    EXPECT_EQ(name_verdict("other.net", allow, deny, false), NameVerdict::Pass);
    EXPECT_EQ(name_verdict("other.net", {}, {}, true), NameVerdict::Drop) << "an emptied allow list still refuses";
}
