// The network keys on Modal as a pure function (runtimes/modal/network_access.hpp): the NetworkAccess of
// the sandbox, or a refusal naming the key and the reason. The request itself: ModalApiFakeTest.
#include <gtest/gtest.h>

#include "network_access.hpp"

using modal::ModalNetwork;
using modal::modal_network;

namespace {
std::string refusal(const std::optional<std::string> &mode, const std::string &allow, const std::string &deny) {
    try {
        modal_network(mode, allow, deny);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(ModalNetworkAccess, ModesAndAllowListsMapped) {
    for (const std::optional<std::string> &open : {std::optional<std::string>{}, std::optional<std::string>{"internet"},
                                                   std::optional<std::string>{"host"}, std::optional<std::string>{"true"}}) {
        const auto n = modal_network(open, "[]", "[]");
        EXPECT_EQ(n.type, ModalNetwork::Type::Open) << open.value_or("unset");
        EXPECT_TRUE(n.allowed_cidrs.empty());
    }
    EXPECT_NE(modal_network("host", "[]", "[]").note.find("never this machine's network"), std::string::npos);
    for (const char *none : {"none", "false"}) {
        const auto n = modal_network(none, "[]", "[]");
        EXPECT_EQ(n.type, ModalNetwork::Type::Allowlist) << none;  // an empty allow list, not block_network
        EXPECT_TRUE(n.allowed_cidrs.empty());
        EXPECT_NE(n.note.find("block_network"), std::string::npos) << n.note;
    }
    const auto some = modal_network("internet", R"(["198.51.100.7","203.0.113.9/24","203.0.113.0/24","2001:db8::/32"])", "[]");
    EXPECT_EQ(some.type, ModalNetwork::Type::Allowlist);
    EXPECT_EQ(some.allowed_cidrs, (std::vector<std::string>{"198.51.100.7/32", "203.0.113.0/24", "2001:db8::/32"}));
    EXPECT_EQ(modal_network(std::nullopt, R"(["198.51.100.7"])", "[]").type, ModalNetwork::Type::Allowlist);  // unset: internet
}

TEST(ModalNetworkAccess, NamesDenyListsAndContradictionsRefused) {
    EXPECT_NE(refusal("internet", "[]", R"(["10.0.0.0/8"])").find("sandbox.deny_out is not enforced by the modal runtime"), std::string::npos);
    EXPECT_NE(refusal("internet", "[]", R"(["pypi.org"])").find("no deny list"), std::string::npos);
    const std::string name = refusal("internet", R"(["198.51.100.7","*.github.com"])", "[]");
    EXPECT_NE(name.find("sandbox.allow_out: '*.github.com'"), std::string::npos) << name;
    EXPECT_NE(name.find("takes CIDRs only"), std::string::npos) << name;
    EXPECT_NE(refusal("none", R"(["198.51.100.7"])", "[]").find("needs sandbox.network = \"internet\""), std::string::npos);
    EXPECT_NE(refusal("host", R"(["198.51.100.7"])", "[]").find("needs sandbox.network = \"internet\""), std::string::npos);
    EXPECT_NE(refusal("open", "[]", "[]").find("must be \"none\", \"internet\" or \"host\""), std::string::npos);
}
