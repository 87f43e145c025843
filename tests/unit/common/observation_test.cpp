// inspect_observation: the one-pass check the host runs on every plugin answer before sending it as it
// came. It must refuse exactly what a full parse and the shape check would refuse, and find the
// session's working directory only where OpenHands puts it.
#include <gtest/gtest.h>

#include <string>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>

using actionhost::common::inspect_observation;

TEST(InspectObservation, AnObservationWithItsWorkingDirectoryIsValid) {
    const auto f = inspect_observation(
        R"({"observation":"run","content":"hi","extras":{"metadata":{"exit_code":0,"working_dir":"/w/sub"}}})");
    EXPECT_TRUE(f.valid) << f.error;
    EXPECT_EQ(f.working_dir, "/w/sub");
    EXPECT_EQ(inspect_observation(R"({"content":"","observation":"read","extras":{}})").working_dir, "");
}

TEST(InspectObservation, TheShapeIsRequired) {
    EXPECT_EQ(inspect_observation(R"({"content":"x"})").error, "no string \"observation\"");
    EXPECT_EQ(inspect_observation(R"({"observation":"run"})").error, "no string \"content\"");
    EXPECT_EQ(inspect_observation(R"({"observation":{"a":"run"},"content":"x"})").error, "no string \"observation\"");
    EXPECT_EQ(inspect_observation(R"({"observation":"run","content":["x"]})").error, "no string \"content\"");
    EXPECT_EQ(inspect_observation(R"({"observation":"run","content":null})").error, "no string \"content\"");
    EXPECT_EQ(inspect_observation(R"([{"observation":"run","content":"x"}])").error, "not a JSON object");
    EXPECT_EQ(inspect_observation(R"("run")").error, "not a JSON object");
    // Only top-level fields count.
    EXPECT_FALSE(inspect_observation(R"({"extras":{"observation":"run","content":"x"}})").valid);
    // A later duplicate wins, as in a full parse.
    EXPECT_FALSE(inspect_observation(R"({"observation":"run","content":"x","content":1})").valid);
    EXPECT_TRUE(inspect_observation(R"({"observation":"run","content":1,"content":"x"})").valid);
}

TEST(InspectObservation, WhatAFullParseRefusesIsRefused) {
    for (const std::string &text : {std::string(R"({"observation":"run","content":"x")"), std::string("{\"observation\":\"run\",\"content\":\"\xff\"}"),
                                   std::string(R"({"observation":"run","content":"x"} trailing)"), std::string("")}) {
        const auto f = inspect_observation(text);
        EXPECT_FALSE(f.valid) << text;
        EXPECT_FALSE(f.error.empty()) << text;
        EXPECT_FALSE(actionhost::common::parse_json(text)) << text;
    }
    std::string deep = R"({"observation":"run","content":"x","extras":)";
    for (int i = 0; i < 300; ++i) deep += "[";
    for (int i = 0; i < 300; ++i) deep += "]";
    deep += "}";
    EXPECT_EQ(inspect_observation(deep).error, "JSON nested deeper than 256 levels");
}

TEST(InspectObservation, TheWorkingDirectoryIsTakenOnlyFromExtrasMetadata) {
    EXPECT_EQ(inspect_observation(R"({"observation":"run","content":"x","working_dir":"/no"})").working_dir, "");
    EXPECT_EQ(inspect_observation(R"({"observation":"run","content":"x","extras":{"working_dir":"/no"}})").working_dir, "");
    EXPECT_EQ(inspect_observation(R"({"observation":"run","content":"x","extras":{"metadata":[{"working_dir":"/no"}]}})").working_dir,
              "");
    EXPECT_EQ(inspect_observation(R"({"observation":"run","content":"x","extras":{"metadata":{"working_dir":7}}})").working_dir, "");
    EXPECT_EQ(
        inspect_observation(R"({"observation":"run","content":"x","extras":{"metadata":{"working_dir":"/a","working_dir":null}}})")
            .working_dir,
        "");
    EXPECT_EQ(inspect_observation(
                  R"({"observation":"run","content":"x","extras":{"metadata":{"nested":{"working_dir":"/no"},"working_dir":"/yes"}}})")
                  .working_dir,
              "/yes");
    // An invalid answer reports no directory, even one read before the fault.
    EXPECT_EQ(inspect_observation(R"({"extras":{"metadata":{"working_dir":"/a"}},"content":"x"})").working_dir, "");
}
