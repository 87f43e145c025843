// The network keys on Kubernetes as pure functions (runtimes/kubernetes/manifests.hpp): egress_plan's
// NetworkPolicy egress rules and resolvers, the policy's manifest and the pod's dnsConfig. The requests
// themselves: KubernetesApiFake.NetworkKeys*.
#include <gtest/gtest.h>

#include "manifests.hpp"

using nlohmann::json;

namespace {
std::string refusal(const std::optional<std::string> &mode, const std::string &allow, const std::string &deny, const std::string &dns) {
    try {
        kube::egress_plan(mode, allow, deny, dns);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}
const json kClusterDns = json::parse(R"({"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                                                 "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
                                         "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]})");
}  // namespace

TEST(KubernetesEgressPlan, NoKeyNoPolicyHostTheUnrestrictedPodNetwork) {
    EXPECT_FALSE(kube::egress_plan(std::nullopt, "[]", "[]", "[]").egress.has_value());
    const auto host = kube::egress_plan("host", "[]", "[]", "[]");
    EXPECT_FALSE(host.egress.has_value());
    EXPECT_NE(host.note.find("never the node's network"), std::string::npos) << host.note;
    const auto dns_only = kube::egress_plan(std::nullopt, "[]", "[]", R"(["192.0.2.53"])");
    EXPECT_FALSE(dns_only.egress.has_value());
    EXPECT_EQ(dns_only.dns, (std::vector<std::string>{"192.0.2.53"}));
}

TEST(KubernetesEgressPlan, NoneLetsNothingOutNotEvenDns) {
    for (const char *none : {"none", "false"}) {
        const auto plan = kube::egress_plan(none, "[]", "[]", "[]");
        ASSERT_TRUE(plan.egress.has_value()) << none;
        EXPECT_EQ(*plan.egress, json::array());
    }
}

TEST(KubernetesEgressPlan, InternetIsEverythingButThePrivateRangesWithTheClustersResolver) {
    const auto plan = kube::egress_plan("internet", "[]", "[]", "[]");
    ASSERT_TRUE(plan.egress.has_value());
    EXPECT_EQ(*plan.egress, json::array({json::parse(R"({"to": [
        {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16"]}},
        {"ipBlock": {"cidr": "::/0", "except": ["fc00::/7", "fe80::/10"]}}]})"),
                                         kClusterDns}))
        << plan.egress->dump();
    // Denied ranges join the excepts of the block they lie in; one inside an except already is no news.
    const auto deny = kube::egress_plan("internet", "[]", R"(["203.0.113.0/24", "10.1.0.0/16", "2001:db8::/32"])", "[]");
    EXPECT_EQ((*deny.egress)[0]["to"][0]["ipBlock"]["except"].back(), "203.0.113.0/24");
    EXPECT_EQ((*deny.egress)[0]["to"][0]["ipBlock"]["except"].size(), 6u);
    EXPECT_EQ((*deny.egress)[0]["to"][1]["ipBlock"]["except"], json::array({"fc00::/7", "fe80::/10", "2001:db8::/32"}));
}

TEST(KubernetesEgressPlan, AllowListsDenyListsAndResolvers) {
    // An entry inside a private range opens that much of it; a denied entry covering a block drops it.
    const auto plan = kube::egress_plan(std::nullopt, R"(["10.2.0.0/16", "198.51.100.0/24", "203.0.113.0/24"])",
                                        R"(["198.51.100.7", "203.0.0.0/16"])", R"(["192.0.2.53", "2001:db8::53"])");
    ASSERT_TRUE(plan.egress.has_value());
    EXPECT_EQ(*plan.egress, json::parse(R"([
        {"to": [{"ipBlock": {"cidr": "10.2.0.0/16"}}, {"ipBlock": {"cidr": "198.51.100.0/24", "except": ["198.51.100.7/32"]}}]},
        {"to": [{"ipBlock": {"cidr": "192.0.2.53/32"}}, {"ipBlock": {"cidr": "2001:db8::53/128"}}],
         "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}])"))
        << plan.egress->dump();
    EXPECT_EQ(plan.dns, (std::vector<std::string>{"192.0.2.53", "2001:db8::53"}));
    // Everything allowed denied: only the resolvers remain.
    const auto all_denied = kube::egress_plan("internet", R"(["198.51.100.0/24"])", R"(["198.51.100.0/23"])", "[]");
    EXPECT_EQ(*all_denied.egress, json::array({kClusterDns}));
}

TEST(KubernetesEgressPlan, NamesAndWhatAPodCannotHaveAreRefused) {
    EXPECT_NE(refusal("internet", R"(["pypi.org"])", "[]", "[]").find("sandbox.allow_out: 'pypi.org'"), std::string::npos);
    EXPECT_NE(refusal("internet", "[]", R"(["*.example.com"])", "[]").find("a NetworkPolicy selects addresses"), std::string::npos);
    EXPECT_NE(refusal("internet", "[]", "[]", R"(["192.0.2.1","192.0.2.2","192.0.2.3","192.0.2.4"])").find("at most 3 nameservers"),
              std::string::npos);
    EXPECT_NE(refusal("none", R"(["198.51.100.0/24"])", "[]", "[]").find("sandbox.allow_out needs sandbox.network = \"internet\""),
              std::string::npos);
    EXPECT_NE(refusal("internet", "[]", "[]", R"(["resolver.example"])").find("sandbox.dns: 'resolver.example' is not an address"),
              std::string::npos);
}

TEST(KubernetesManifests, NetworkPolicyAndResolversOfTheSandboxsPod) {
    kube::SandboxSpec s;
    s.session_id = "abc";
    s.image = "img";
    s.workspace = "/workspace";
    s.egress = json::array();
    s.dns = {"192.0.2.53"};
    const json policy = kube::network_policy_manifest(s);
    EXPECT_EQ(policy["kind"], "NetworkPolicy");
    EXPECT_EQ(policy["apiVersion"], "networking.k8s.io/v1");
    EXPECT_EQ(policy["metadata"]["name"], "openhands-runtime-abc-egress");
    EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"], json({{"app", "openhands-runtime"}, {"session", "abc"}}));
    EXPECT_EQ(policy["spec"]["policyTypes"], json::array({"Egress"}));
    EXPECT_EQ(policy["spec"]["egress"], json::array());
    const json pod = kube::pod_manifest(s);
    EXPECT_EQ(pod["spec"]["dnsPolicy"], "None");
    EXPECT_EQ(pod["spec"]["dnsConfig"]["nameservers"], json::array({"192.0.2.53"}));
}
