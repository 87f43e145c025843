// inspect_observation: the one-pass check the host runs on every plugin answer before sending it as it
// came. It must refuse exactly what a full parse and the shape check would refuse, and find the
// session's working directory only where OpenHands puts it.
#include <gtest/gtest.h>

#include <string>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>

#include "json_text_generator.hpp"

using actionhost::common::inspect_observation;

namespace {
// Why `text` is refused ("" when it is not), and the working directory a valid one reports.
std::string error_of(std::string_view text) {
    auto r = inspect_observation(text);
    return r ? std::string() : r.error().message;
}
std::string dir_of(std::string_view text) {
    auto r = inspect_observation(text);
    return r ? r.value().working_dir : std::string();
}
}  // namespace

TEST(InspectObservation, AnObservationWithItsWorkingDirectoryIsValid) {
    const auto f = inspect_observation(
        R"({"observation":"run","content":"hi","extras":{"metadata":{"exit_code":0,"working_dir":"/w/sub"}}})");
    ASSERT_TRUE(f) << f.error().message;
    EXPECT_EQ(f.value().working_dir, "/w/sub");
    EXPECT_EQ(dir_of(R"({"content":"","observation":"read","extras":{}})"), "");
}

// The host's metrics count an error observation as the outcome "error"; only the top-level type says so.
TEST(InspectObservation, TellsAnErrorObservation) {
    auto is_error = [](std::string_view text) {
        auto fast = inspect_observation(text);
        auto exact = actionhost::common::detail::inspect_observation_with_nlohmann_only(text);
        EXPECT_TRUE(fast && exact) << text;
        EXPECT_EQ(fast.value().is_error, exact.value().is_error) << text;
        return fast.value().is_error;
    };
    EXPECT_TRUE(is_error(R"({"observation":"error","content":"no such file"})"));
    EXPECT_FALSE(is_error(R"({"observation":"run","content":"error"})"));
    EXPECT_FALSE(is_error(R"({"observation":"run","content":"x","extras":{"observation":"error"}})"));
    EXPECT_FALSE(is_error(R"({"observation":"error","content":"x","observation":"run"})"));  // a later duplicate wins
    EXPECT_TRUE(is_error(R"({"observation":"run","content":"x","observation":"error"})"));
}

TEST(InspectObservation, TheShapeIsRequired) {
    EXPECT_EQ(error_of(R"({"content":"x"})"), "no string \"observation\"");
    EXPECT_EQ(error_of(R"({"observation":"run"})"), "no string \"content\"");
    EXPECT_EQ(error_of(R"({"observation":{"a":"run"},"content":"x"})"), "no string \"observation\"");
    EXPECT_EQ(error_of(R"({"observation":"run","content":["x"]})"), "no string \"content\"");
    EXPECT_EQ(error_of(R"({"observation":"run","content":null})"), "no string \"content\"");
    EXPECT_EQ(error_of(R"([{"observation":"run","content":"x"}])"), "not a JSON object");
    EXPECT_EQ(error_of(R"("run")"), "not a JSON object");
    // Only top-level fields count.
    EXPECT_FALSE(inspect_observation(R"({"extras":{"observation":"run","content":"x"}})"));
    // A later duplicate wins, as in a full parse.
    EXPECT_FALSE(inspect_observation(R"({"observation":"run","content":"x","content":1})"));
    EXPECT_TRUE(inspect_observation(R"({"observation":"run","content":1,"content":"x"})"));
}

TEST(InspectObservation, WhatAFullParseRefusesIsRefused) {
    for (const std::string &text : {std::string(R"({"observation":"run","content":"x")"), std::string("{\"observation\":\"run\",\"content\":\"\xff\"}"),
                                   std::string(R"({"observation":"run","content":"x"} trailing)"), std::string("")}) {
        const auto f = inspect_observation(text);
        ASSERT_FALSE(f) << text;
        EXPECT_FALSE(f.error().message.empty()) << text;
        EXPECT_FALSE(actionhost::common::parse_json(text)) << text;
    }
    std::string deep = R"({"observation":"run","content":"x","extras":)";
    for (int i = 0; i < 300; ++i) deep += "[";
    for (int i = 0; i < 300; ++i) deep += "]";
    deep += "}";
    EXPECT_EQ(error_of(deep), "JSON nested deeper than 256 levels");
}

TEST(InspectObservation, TheWorkingDirectoryIsTakenOnlyFromExtrasMetadata) {
    EXPECT_EQ(dir_of(R"({"observation":"run","content":"x","working_dir":"/no"})"), "");
    EXPECT_EQ(dir_of(R"({"observation":"run","content":"x","extras":{"working_dir":"/no"}})"), "");
    EXPECT_EQ(dir_of(R"({"observation":"run","content":"x","extras":{"metadata":[{"working_dir":"/no"}]}})"),
              "");
    EXPECT_EQ(dir_of(R"({"observation":"run","content":"x","extras":{"metadata":{"working_dir":7}}})"), "");
    EXPECT_EQ(
        dir_of(R"({"observation":"run","content":"x","extras":{"metadata":{"working_dir":"/a","working_dir":null}}})"),
        "");
    EXPECT_EQ(dir_of(
                  R"({"observation":"run","content":"x","extras":{"metadata":{"nested":{"working_dir":"/no"},"working_dir":"/yes"}}})"),
              "/yes");
    // An invalid answer reports no directory, even one read before the fault: it is a failure, which has none.
    EXPECT_EQ(error_of(R"({"extras":{"metadata":{"working_dir":"/a"}},"content":"x"})"), "no string \"observation\"");
}

namespace {
// "" when inspect_observation agrees with nlohmann's SAX scan alone on `text`, else what differs.
std::string disagreement(const std::string &text) {
    const auto fast = inspect_observation(text);
    const auto exact = actionhost::common::detail::inspect_observation_with_nlohmann_only(text);
    if (bool(fast) != bool(exact))
        return std::string("accepted by ") + (fast ? "inspect_observation only" : "the scan only") +
               (exact ? "" : ": " + exact.error().message);
    if (!fast) return fast.error().message == exact.error().message ? "" : fast.error().message + " vs " + exact.error().message;
    if (fast.value().is_error != exact.value().is_error) return "is_error differs";
    return fast.value().working_dir == exact.value().working_dir ? "" : fast.value().working_dir + " vs " + exact.value().working_dir;
}
}  // namespace

// simdjson reads the observation, nlohmann's scan what simdjson refuses: the verdicts must be the scan's.
TEST(InspectObservation, AgreesWithTheScanOnGeneratedAndBrokenObservations) {
    actionhost::testing::JsonTextGenerator gen(27112026);
    int valid = 0;
    for (int i = 0; i < 20000; ++i) {
        // Mostly observation-shaped: the fields the check reads, around generated values.
        const std::string observation = i % 7 == 1 ? gen.value(1) : "\"run\"";
        const std::string content = i % 7 == 2 ? gen.value(1) : gen.string();
        std::string text = i % 4 == 0 ? gen.next(false)
                                       : "{\"observation\":" + observation + ",\"content\":" + content +
                                             ",\"extras\":{\"metadata\":{\"working_dir\":" + gen.value(2) + "}," +
                                             "\"x\":" + gen.value(1) + "}" + (i % 5 == 0 ? ",\"content\":\"c\"" : "") +
                                             (i % 6 == 0 ? ",\"observation\":" + gen.value(1) : "") +
                                             (i % 8 == 0 ? ",\"extras\":{\"metadata\":{\"working_dir\":" + gen.value(1) + "}}" : "") + "}";
        if (i % 3 == 0 && !text.empty()) text.erase(static_cast<size_t>(i) % text.size(), 1);
        const std::string why = disagreement(text);
        ASSERT_EQ(why, "") << "text #" << i << ": " << text;
        valid += inspect_observation(text) ? 1 : 0;
    }
    EXPECT_GT(valid, 500);
    EXPECT_LT(valid, 19000);
}
