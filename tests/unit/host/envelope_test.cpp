// The wire's normalisation (envelope.cpp) and the checks a declaration makes (action_schema.cpp), with the
// declarations the plugins of this repository really ship.
#include "actions/envelope.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "actions/file_actions.hpp"
#include <actionhost/modules/manifest.hpp>

using namespace actionhost::host;
using namespace actionhost::modules;
using nlohmann::json;

namespace {

const ActionSpec &declared(const std::string &plugin, const std::string &action) {
    if (plugin == "host")
        for (const auto &a : host_action_specs())
            if (a.name == action) return a;
    static std::map<std::string, Manifest> cache;
    if (!cache.count(plugin)) {
        std::ifstream in(std::string(AH_SOURCE_DIR) + "/plugins/" + plugin + "/manifest.json");
        std::stringstream text;
        text << in.rdbuf();
        std::string t = text.str();
        t.replace(t.find("@AH_ABI_VERSION@"), 16, "2.0.0");
        auto parsed = parse_manifest(t, "/x");
        EXPECT_TRUE(parsed) << parsed.error().message;
        cache[plugin] = parsed.value();
    }
    for (const auto &a : cache[plugin].actions)
        if (a.name == action) return a;
    throw std::runtime_error(plugin + " declares no " + action);
}

// Parses and validates as the router does; the error of either step.
struct Checked {
    std::optional<json> args;
    std::string error;
};
Checked check(const json &in, const ActionSpec &spec) {
    auto r = parse_envelope(in);
    if (!r) return {std::nullopt, r.error().message};
    if (auto valid = spec.validate(r.value().args, shared_action_args()); !valid) return {std::nullopt, valid.error().message};
    return {r.value().args, ""};
}

}  // namespace

TEST(Envelope, FillsEveryDefaultOfRun) {
    auto r = check(json::parse(R"({"action":"run","args":{"command":"ls"}})"), declared("bash", "run"));
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ(*r.args, json::parse(R"({"command":"ls","is_input":false,
      "thought":"","blocking":false,"is_static":false,"cwd":null,"hidden":false,"confirmation_state":"confirmed",
      "security_risk":-1})"));
}

TEST(Envelope, AppliesTheOpenHandsNormalisationRules) {
    auto r = parse_envelope(json::parse(R"({"id":3,"timestamp":"t","source":"agent","message":"m","cause":2,"action":"run",
      "args":{"command":"ls","timestamp":"x","is_confirmed":"rejected","keep_prompt":true,"security_risk":7,
      "images_urls":["a"]},"timeout":2.5})"));
    ASSERT_TRUE(r) << r.error().message;
    json a = r.value().args;
    EXPECT_TRUE(declared("bash", "run").validate(a, shared_action_args()));
    EXPECT_FALSE(a.contains("timestamp"));
    EXPECT_FALSE(a.contains("keep_prompt"));
    EXPECT_FALSE(a.contains("is_confirmed"));
    EXPECT_EQ(a["confirmation_state"], "rejected");
    EXPECT_EQ(a["security_risk"], -1);  // invalid value dropped, then the default
    EXPECT_EQ(a["image_urls"], json::array({"a"}));
    ASSERT_TRUE(r.value().timeout);
    EXPECT_DOUBLE_EQ(*r.value().timeout, 2.5);
}

TEST(Envelope, CoercesTheStringBooleansOfLlmTools) {
    auto r = check(json::parse(R"({"action":"run","args":{"command":"x","is_input":"true"}})"), declared("bash", "run"));
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ((*r.args)["is_input"], true);
}

TEST(Envelope, RefusesMalformedActions) {
    const ActionSpec &run = declared("bash", "run");
    EXPECT_NE(parse_envelope(json::parse(R"({"args":{}})")).error().message.find("'action' key is not found"), std::string::npos);
    EXPECT_NE(parse_envelope(json::parse(R"({"action":5})")).error().message.find("'action' must be a string"), std::string::npos);
    EXPECT_NE(check(json::parse(R"({"action":"run","args":{"command":"x","bogus":1}})"), run).error.find("unknown argument 'bogus'"), std::string::npos);
    EXPECT_EQ(check(json::parse(R"({"action":"run","args":{}})"), run).error, "missing required argument 'command' for action 'run'");
    EXPECT_EQ(check(json::parse(R"({"action":"run","args":{"command":3}})"), run).error,
              "argument 'command' of action 'run' must be a string, got 3");
    EXPECT_EQ(check(json::parse(R"({"action":"run","args":{"command":"x","cwd":1}})"), run).error,
              "argument 'cwd' of action 'run' must be a string or null, got 1");
    EXPECT_NE(parse_envelope(json::parse(R"({"action":"run","args":[]})")).error().message.find("'args' must be a JSON object"), std::string::npos);
    EXPECT_NE(parse_envelope(json::parse(R"({"action":"run","args":{"command":"x"},"timeout":-1})")).error().message.find("positive"), std::string::npos);
}

TEST(Envelope, UndeclaredArgumentsPassThrough) {
    auto r = check(json::parse(R"({"action":"agent_skill","args":{"anything":[1,2]}})"), declared("agent_skills", "agent_skill"));
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ((*r.args)["anything"], json::array({1, 2}));
}

TEST(Envelope, EditDefaultsMatchOpenHands) {
    auto r = check(json::parse(R"({"action":"edit","args":{"path":"/a","command":"view"}})"), declared("agent_skills", "edit"));
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ((*r.args)["impl_source"], "oh_aci");
    EXPECT_EQ((*r.args)["start"], 1);
    EXPECT_TRUE((*r.args)["insert_line"].is_null());
}

// A read with impl_source oh_aci goes to the editor's declaration; without it, to the host's own.
TEST(Envelope, TheEditorTakesReadsOnlyWhenAsked) {
    const ActionSpec &editor_read = declared("agent_skills", "read");
    EXPECT_TRUE(editor_read.matches(json::parse(R"({"path":"/a","impl_source":"oh_aci"})")));
    EXPECT_FALSE(editor_read.matches(json::parse(R"({"path":"/a"})")));
    EXPECT_FALSE(editor_read.matches(json::parse(R"({"path":"/a","impl_source":"default"})")));
}

// Found by fuzz/envelope: a float too large for long long was converted (undefined behaviour).
TEST(Envelope, IntArgumentsOutOfRangeAreTypeErrorsNotConversions) {
    const ActionSpec &read = declared("host", "read");
    for (const char *end : {"-2.2e137", "9.3e18", "1e300"}) {
        auto r = check(json::parse(std::string(R"({"action":"read","args":{"path":"/x","end":)") + end + "}}"), read);
        EXPECT_FALSE(r.args) << end;
        EXPECT_FALSE(r.error.empty()) << end;
    }
    auto whole = check(json::parse(R"({"action":"read","args":{"path":"/x","end":3.0}})"), read);
    ASSERT_TRUE(whole.args) << whole.error;
    EXPECT_EQ((*whole.args)["end"], 3);
}

TEST(ActionSchema, BadDeclarationsAreRefusedWithTheirField) {
    auto error_of = [](const char *declarations) {
        auto r = parse_action_specs(nlohmann::ordered_json::parse(declarations));
        return r ? std::string("(accepted)") : r.error().message;
    };
    std::string error = error_of(R"({"a":{"args":{"x":{"type":"strnig"}}}})");
    EXPECT_NE(error, "(accepted)");
    EXPECT_NE(error.find("provides.actions.a.args.x"), std::string::npos) << error;
    error = error_of(R"({"a":{"args":{"x":{"required":true,"default":1}}}})");
    EXPECT_NE(error, "(accepted)");
    EXPECT_NE(error.find("both required and defaulted"), std::string::npos) << error;
    error = error_of(R"({"a":{"args":{"x":{"type":"integer","default":"no"}}}})");
    EXPECT_NE(error, "(accepted)");
    EXPECT_NE(error.find(".default must be an integer"), std::string::npos) << error;
    error = error_of(R"({"a":{"argz":{}}})");
    EXPECT_NE(error, "(accepted)");
    EXPECT_NE(error.find("unknown field \"argz\""), std::string::npos) << error;
    error = error_of(R"({"a":{"when":{}}})");
    EXPECT_NE(error, "(accepted)");
    error = error_of(R"({"a":{"interrupt_when":[]}})");
    EXPECT_NE(error, "(accepted)");
    EXPECT_NE(error.find("provides.actions.a\".interrupt_when must be an object"), std::string::npos) << error;
}

// bash's C-c input is an interrupt (the host lets it beside a running action); nothing else is.
TEST(ActionSchema, OnlyTheDeclaredValuesMakeAnInterrupt) {
    const ActionSpec &run = declared("bash", "run");
    auto interrupts = [&](const char *text) {
        auto r = check(json::parse(text), run);
        EXPECT_TRUE(r.args) << r.error;
        return r.args && run.interrupts(*r.args);
    };
    EXPECT_TRUE(interrupts(R"({"action":"run","args":{"command":"C-c","is_input":true}})"));
    EXPECT_TRUE(interrupts(R"({"action":"run","args":{"command":"C-c","is_input":"true"}})"));  // LLM tools' string
    EXPECT_FALSE(interrupts(R"({"action":"run","args":{"command":"C-c"}})"));
    EXPECT_FALSE(interrupts(R"({"action":"run","args":{"command":"C-d","is_input":true}})"));
    EXPECT_FALSE(interrupts(R"({"action":"run","args":{"command":"echo hi","is_input":true}})"));
    EXPECT_FALSE(declared("host", "read").interrupts(json::parse(R"({"path":"/x"})")));
}

// separate_stderr is declared without a default: an OpenHands client's action stays exactly as it was.
TEST(Envelope, SeparateStderrIsCheckedButNeverAdded) {
    auto r = check(json::parse(R"({"action":"run","args":{"command":"ls","separate_stderr":true}})"), declared("bash", "run"));
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ(r.args->value("separate_stderr", false), true);
    EXPECT_FALSE(check(json::parse(R"({"action":"run","args":{"command":"ls"}})"), declared("bash", "run")).args->contains("separate_stderr"));
    EXPECT_FALSE(check(json::parse(R"({"action":"run","args":{"command":"ls","separate_stderr":"maybe"}})"), declared("bash", "run")).args);
}
