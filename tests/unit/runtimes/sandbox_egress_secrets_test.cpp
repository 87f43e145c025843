// Secrets kept outside the sandbox (runtimes/sandbox/init/egress_secrets.hpp): what the configuration may
// say, what it may not (each refusal names the secret and never its value), and the header each becomes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "egress_secrets.hpp"

using namespace sandbox;
using nlohmann::json;

namespace {

// The message of the std::invalid_argument `f` throws, or "" when it throws none.
template <typename F>
std::string refusal(F f) {
    try {
        f();
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(SandboxEgressSecrets, ATableBecomesHeadersForItsHosts) {
    const auto secrets = parse_secret_table(json::parse(R"({
        "openai": {"value": "sk-1", "hosts": ["API.OpenAI.com."]},
        "gh": {"value": "ghp_2", "hosts": ["github.com", "*.github.com"], "username": "x-access-token"},
        "custom": {"value": "k3", "hosts": "api.example.org", "header": "X-Api-Key"},
        "formatted": {"value": "t4", "hosts": ["gitlab.example.com"], "format": "token {value}"}
    })"));
    ASSERT_EQ(secrets.size(), 4u);
    const auto *openai = secret_for_host(secrets, "api.openai.com");
    ASSERT_NE(openai, nullptr);
    EXPECT_EQ(openai->header, "Authorization");
    EXPECT_EQ(openai->header_value, "Bearer sk-1");
    EXPECT_EQ(openai->hosts, std::vector<std::string>{"api.openai.com"}) << "hosts are normalised";
    const auto *gh = secret_for_host(secrets, "api.github.com");
    ASSERT_NE(gh, nullptr);
    EXPECT_EQ(gh->header_value, "Basic eC1hY2Nlc3MtdG9rZW46Z2hwXzI=");  // base64("x-access-token:ghp_2")
    EXPECT_EQ(secret_for_host(secrets, "github.com"), gh);
    EXPECT_EQ(secret_for_host(secrets, "evilgithub.com"), nullptr) << "a wildcard is for what lies below its name only";
    EXPECT_EQ(secret_for_host(secrets, "api.example.org")->header_value, "k3");
    EXPECT_EQ(secret_for_host(secrets, "api.example.org")->header, "X-Api-Key");
    EXPECT_EQ(secret_for_host(secrets, "gitlab.example.com")->header_value, "token t4");
    EXPECT_EQ(secret_hosts(secrets).size(), 5u);
    EXPECT_TRUE(parse_secret_table(json()).empty()) << "unset: no secrets";
}

TEST(SandboxEgressSecrets, WhatCannotBeASecretIsRefusedWithoutQuotingIt) {
    const auto refused = [](const std::string &table) { return refusal([&] { parse_secret_table(json::parse(table)); }); };
    EXPECT_NE(refused(R"({"a": {"value": "v"}})").find("sandbox.secrets.a: hosts"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": []}})").find("at least one host"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"hosts": ["x.test"]}})").find("value is missing"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "", "hosts": ["x.test"]}})").find("value is empty"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["10.0.0.1"]}})").find("not a host name"), std::string::npos)
        << "an address is not a name a TLS connection asks for";
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["bad host.test"]}})").find("sandbox.secrets.a"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "header": "Host"}})").find("frames the request"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "header": "Transfer-Encoding"}})").find("frames"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "header": "X Bad"}})").find("not a header name"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "format": "no placeholder"}})").find("{value}"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "username": "u", "format": "{value}"}})").find("not both"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "username": "u:v"}})").find("':'"), std::string::npos);
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "hots": ["y"]}})").find("unknown key 'hots'"), std::string::npos);
    EXPECT_NE(refused(R"({"a": "just-a-string"})").find("must be a table"), std::string::npos);
    EXPECT_NE(refused(R"(["a"])").find("must be a table of secrets"), std::string::npos);
    EXPECT_NE(refused(R"({"a b": {"value": "v", "hosts": ["x.test"]}})").find("not a name for a secret"), std::string::npos);
    // A value that would end the header line (and start another, or the body): refused, never quoted.
    const std::string injected = refused(R"({"a": {"value": "sek\r\nX-Evil: 1", "hosts": ["x.test"]}})");
    EXPECT_NE(injected.find("control character"), std::string::npos) << injected;
    EXPECT_EQ(injected.find("sek"), std::string::npos) << "the refusal quotes the value: " << injected;
    EXPECT_NE(refused(R"({"a": {"value": "v", "hosts": ["x.test"], "username": "u\nx"}})").find("control character"), std::string::npos);
    EXPECT_NE(refusal([] { make_secret("big", std::string(9000, 'a'), {"x.test"}); }).find("8 KiB"), std::string::npos);
}

TEST(SandboxEgressSecrets, TheTravellingFormComesBackTheSameAndIsCheckedAgain) {
    const auto secrets = parse_secret_table(json::parse(R"({"a": {"value": "v", "hosts": ["x.test", "*.y.test"], "username": "u"}})"));
    const auto back = secrets_from_wire(secrets_to_wire(secrets));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].name, "a");
    EXPECT_EQ(back[0].hosts, secrets[0].hosts);
    EXPECT_EQ(back[0].header_value, secrets[0].header_value);
    // What arrives is checked as what was configured: no header injection through the wire either.
    EXPECT_THROW(secrets_from_wire(json::parse(R"([{"name": "a", "hosts": ["x.test"], "header": "Authorization", "header_value": "v\r\nHost: evil"}])")),
                 std::invalid_argument);
    EXPECT_THROW(secrets_from_wire(json::parse(R"([{"name": "a", "hosts": ["x.test"], "header": "Host", "header_value": "v"}])")), std::invalid_argument);
    EXPECT_THROW(secrets_from_wire(json::parse(R"({"name": "a"})")), std::invalid_argument);
    EXPECT_THROW(secrets_from_wire(json::parse(R"([{"name": "a", "hosts": ["x.test"]}])")), std::invalid_argument);
}
