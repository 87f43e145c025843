// The [sandbox] network keys as docker, modal and kubernetes read them (runtime_support/network_keys.hpp):
// the mode, the lists checked, CIDRs told from names and ranges from ranges.
#include <actionhost/runtime_support/network_keys.hpp>
#include <gtest/gtest.h>

using namespace actionhost::runtime_support;

namespace {

std::string refusal(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                    const std::optional<std::string> &deny = std::nullopt, const std::optional<std::string> &dns = std::nullopt) {
    try {
        read_network_keys(mode, allow, deny, dns);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(NetworkKeys, CidrsAreNormalisedAndContained) {
    EXPECT_EQ(parse_cidr("10.1.2.3/8")->text(), "10.0.0.0/8");
    EXPECT_EQ(parse_cidr("10.1.2.3")->text(), "10.1.2.3/32");
    EXPECT_EQ(parse_cidr("2001:db8::1/32")->text(), "2001:db8::/32");
    EXPECT_EQ(parse_cidr("fd00::2")->text(), "fd00::2/128");
    EXPECT_EQ(parse_cidr("0.0.0.0/0")->text(), "0.0.0.0/0");
    for (const char *bad : {"pypi.org", "*.github.com", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/x", "1.2.3", ""})
        EXPECT_FALSE(parse_cidr(bad).has_value()) << bad;
    EXPECT_TRUE(parse_cidr("10.0.0.0/8")->contains(*parse_cidr("10.2.0.0/16")));
    EXPECT_TRUE(parse_cidr("10.0.0.0/8")->contains(*parse_cidr("10.0.0.0/8")));
    EXPECT_FALSE(parse_cidr("10.2.0.0/16")->contains(*parse_cidr("10.0.0.0/8")));
    EXPECT_FALSE(parse_cidr("0.0.0.0/0")->contains(*parse_cidr("fd00::/8")));  // another family
    EXPECT_TRUE(parse_cidr("::/0")->contains(*parse_cidr("fe80::1")));
}

TEST(NetworkKeys, ModesAndListsAreReadAsTheSandboxRuntimeReadsThem) {
    EXPECT_EQ(read_network_keys(std::nullopt, std::nullopt, std::nullopt, std::nullopt).mode, NetworkMode::Unset);
    EXPECT_EQ(read_network_keys("none", "[]", "[]", "[]").mode, NetworkMode::None);
    EXPECT_EQ(read_network_keys("false", "", "null", "[]").mode, NetworkMode::None);
    EXPECT_EQ(read_network_keys("host", "[]", "[]", "[]").mode, NetworkMode::Host);
    EXPECT_EQ(read_network_keys("true", "[]", "[]", "[]").mode, NetworkMode::Host);
    const auto k = read_network_keys("internet", R"(["198.51.100.0/24","pypi.org"])", R"(["10.0.0.0/8"])", R"(["192.0.2.53"])");
    EXPECT_EQ(k.mode, NetworkMode::Internet);
    EXPECT_EQ(k.allow, (std::vector<std::string>{"198.51.100.0/24", "pypi.org"}));
    EXPECT_EQ(k.deny, (std::vector<std::string>{"10.0.0.0/8"}));
    EXPECT_EQ(k.dns, (std::vector<std::string>{"192.0.2.53"}));
    EXPECT_EQ(read_network_keys(std::nullopt, R"(["198.51.100.0/24"])", "[]", "[]").allow.size(), 1u);  // unset: the default, internet
    EXPECT_NE(refusal("everywhere", "[]").find("must be \"none\", \"internet\" or \"host\""), std::string::npos);
    EXPECT_NE(refusal("internet", R"("10.0.0.0/8")").find("sandbox.allow_out must be a list"), std::string::npos);
    EXPECT_NE(refusal("internet", R"([1])").find("sandbox.allow_out must be a list"), std::string::npos);
    EXPECT_NE(refusal("internet", "[]", "[]", R"({"a":1})").find("sandbox.dns must be a list"), std::string::npos);
    EXPECT_NE(refusal("none", R"(["198.51.100.0/24"])").find("sandbox.allow_out needs sandbox.network = \"internet\" (it is \"none\")"),
              std::string::npos);
    EXPECT_NE(refusal("host", "[]", R"(["10.0.0.0/8"])").find("sandbox.deny_out needs sandbox.network = \"internet\" (it is \"host\")"),
              std::string::npos);
    EXPECT_NE(refusal("none", "[]", "[]", R"(["192.0.2.53"])").find("sandbox.dns needs"), std::string::npos);
}

TEST(NetworkKeys, NamesAreRefusedWhereOnlyCidrsCanBeEnforced) {
    const auto cidrs = cidr_entries({"198.51.100.7", "198.51.100.7/32", "2001:db8::/32"}, "sandbox.allow_out", "why");
    ASSERT_EQ(cidrs.size(), 2u);  // a duplicate once
    EXPECT_EQ(cidrs[0].text(), "198.51.100.7/32");
    try {
        cidr_entries({"198.51.100.7", "pypi.org"}, "sandbox.allow_out", "the platform filters addresses only");
        ADD_FAILURE() << "a name was taken";
    } catch (const std::invalid_argument &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("sandbox.allow_out: 'pypi.org'"), std::string::npos) << what;
        EXPECT_NE(what.find("the platform filters addresses only"), std::string::npos) << what;
    }
    EXPECT_EQ(dns_addresses({"192.0.2.53", "2001:db8::53"}), (std::vector<std::string>{"192.0.2.53", "2001:db8::53"}));
    EXPECT_THROW(dns_addresses({"192.0.2.0/24"}), std::invalid_argument);
    EXPECT_THROW(dns_addresses({"dns.example"}), std::invalid_argument);
}
