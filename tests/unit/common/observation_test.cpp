// inspect_observation: the one-pass check the host runs on every plugin answer before sending it as it
// came. It must refuse exactly what a full parse and the shape check would refuse, and find the
// session's working directory only where OpenHands puts it.
#include <gtest/gtest.h>

#include <string>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>

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
