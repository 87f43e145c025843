// common/log.hpp: the one level enum (value for value ah_log_level_t) and the one line format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "actionhost/common/log.hpp"
#include "actionhost/common/random.hpp"

namespace {

using namespace actionhost::common;

TEST(Log, LevelsAreTheAbiLevels) {
    for (ah_log_level_t l = AH_LOG_DEBUG; l <= AH_LOG_PLUGIN_MISBEHAVING; ++l) EXPECT_EQ(to_abi(from_abi(l)), l);
    EXPECT_EQ(from_abi(AH_LOG_WARNING), LogLevel::Warning);
    EXPECT_EQ(from_abi(99), LogLevel::Info);  // a newer module's level
    EXPECT_EQ(from_abi(-1), LogLevel::Info);
    EXPECT_STREQ(level_name(LogLevel::PluginMisbehaving), "PLUGIN-MISBEHAVING");
}

TEST(Log, ATextLineHasTimeLevelSourceAndMessage) {
    const std::string line = format_log_line(LogLevel::Warning, "host", "ignoring x", LogFormat::Text);
    EXPECT_TRUE(std::regex_match(line, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ WARNING \[host\] ignoring x\n)"))) << line;
}

TEST(Log, AJsonLineIsOneObjectAndSurvivesInvalidUtf8) {
    const std::string line = format_log_line(LogLevel::Error, "bash", "bad \xff byte", LogFormat::Json);
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j.at("level"), "ERROR");
    EXPECT_EQ(j.at("source"), "bash");
    EXPECT_EQ(j.at("message"), "bad \xef\xbf\xbd byte");
    EXPECT_TRUE(j.at("time").is_string());
}

TEST(RandomHex, HasTheRequestedLengthLowerCaseDigitsAndVaries) {
    const std::string a = random_hex(16), b = random_hex(16);
    EXPECT_TRUE(std::regex_match(a, std::regex("[0-9a-f]{32}"))) << a;
    EXPECT_NE(a, b);
    EXPECT_EQ(random_hex(0), "");
}

}  // namespace
