// The one semver-range implementation (common/modules/version_range.hpp) and the manifest's
// "requires.plugins" in both of its forms.
#include <actionhost/modules/manifest.hpp>
#include <actionhost/modules/version_range.hpp>
#include <gtest/gtest.h>

#include <random>

using actionhost::modules::parse_manifest;
using actionhost::modules::parse_plugin_version;
using actionhost::modules::VersionRange;

namespace {

VersionRange range(const std::string &text) {
    auto r = VersionRange::parse(text);
    EXPECT_TRUE(r) << text << ": " << (r ? "" : r.error().message);
    return r ? r.value() : VersionRange::parse("").value();
}

std::string refusal(const std::string &text) {
    auto r = VersionRange::parse(text);
    EXPECT_FALSE(r) << "accepted: " << text;
    return r ? "" : r.error().message;
}

}  // namespace

TEST(ModuleVersionRange, ComparisonsAndConjunctions) {
    const auto r = range(">=1.2 <2");
    EXPECT_FALSE(r.contains("1.1.9"));
    EXPECT_TRUE(r.contains("1.2.0"));
    EXPECT_TRUE(r.contains("1.99.3"));
    EXPECT_FALSE(r.contains("2.0.0"));
    EXPECT_TRUE(range(">1.2.3").contains("1.2.4"));
    EXPECT_FALSE(range(">1.2.3").contains("1.2.3"));
    EXPECT_FALSE(range(">1.2").contains("1.2.9"));  // past every 1.2.x
    EXPECT_TRUE(range(">1.2").contains("1.3.0"));
    EXPECT_TRUE(range("<=1.2").contains("1.2.7"));
    EXPECT_FALSE(range("<=1.2").contains("1.3.0"));
    EXPECT_TRUE(range(">= 1.2  < 2").contains("1.5.0"));  // an operator apart from its version
}

TEST(ModuleVersionRange, ExactXRangesCaretTildeAndAlternatives) {
    EXPECT_TRUE(range("1.2.3").contains("1.2.3"));
    EXPECT_FALSE(range("=1.2.3").contains("1.2.4"));
    EXPECT_TRUE(range("1.2").contains("1.2.9"));
    EXPECT_FALSE(range("1.2.x").contains("1.3.0"));
    EXPECT_TRUE(range("1").contains("1.9.9"));
    EXPECT_TRUE(range("^1.2.3").contains("1.9.0"));
    EXPECT_FALSE(range("^1.2.3").contains("2.0.0"));
    EXPECT_FALSE(range("^1.2.3").contains("1.2.2"));
    EXPECT_TRUE(range("^0.2.3").contains("0.2.9"));
    EXPECT_FALSE(range("^0.2.3").contains("0.3.0"));
    EXPECT_FALSE(range("^0.0.3").contains("0.0.4"));
    EXPECT_TRUE(range("~1.2.3").contains("1.2.9"));
    EXPECT_FALSE(range("~1.2.3").contains("1.3.0"));
    EXPECT_TRUE(range("~1").contains("1.5.0"));
    const auto either = range("<1 || >=3.1");
    EXPECT_TRUE(either.contains("0.9.0"));
    EXPECT_FALSE(either.contains("2.0.0"));
    EXPECT_TRUE(either.contains("3.1.0"));
    for (const char *any : {"", "*", "x", "  "}) {
        EXPECT_TRUE(range(any).any()) << any;
        EXPECT_TRUE(range(any).contains("0.0.1")) << any;
    }
    EXPECT_TRUE(range("v1.2.3").contains("v1.2.3"));
}

TEST(ModuleVersionRange, BestOfTagsSkipsWhatIsNoVersion) {
    const auto r = range(">=1.2 <2");
    EXPECT_EQ(r.best_of({"1.0.0", "1.2.0", "latest", "1.10.1", "1.9.0", "2.0.0", "1.11.0-rc1", "sha256-abc.sig"}), "1.10.1");
    EXPECT_EQ(r.best_of({"0.1.0", "2.0.0"}), "");
    EXPECT_EQ(r.best_of({}), "");
}

TEST(ModuleVersionRange, BadRangesAreClearErrors) {
    EXPECT_NE(refusal(">=1.2.0-rc1").find("pre-release"), std::string::npos);
    EXPECT_NE(refusal("1.2 - 2").find("hyphen ranges"), std::string::npos);
    EXPECT_NE(refusal(">=").find("lacks its version"), std::string::npos);
    EXPECT_NE(refusal("abc").find("\"abc\" is not a version"), std::string::npos);
    EXPECT_NE(refusal("1.2.3.4").find("more than three parts"), std::string::npos);
    EXPECT_NE(refusal("1.x.3").find("after a wildcard"), std::string::npos);
    EXPECT_NE(refusal("01.2").find("leading zero"), std::string::npos);
    EXPECT_NE(refusal("<*").find("admits no version"), std::string::npos);
    EXPECT_NE(refusal("1 || ").find("empty alternative"), std::string::npos);
    EXPECT_NE(refusal("99999999999").find("is not a version"), std::string::npos);
    EXPECT_NE(refusal("1000000000").find("past"), std::string::npos);
    EXPECT_NE(refusal("1.2\n").find("printable"), std::string::npos);
    EXPECT_NE(refusal(std::string(300, '1')).find("longer than 256"), std::string::npos);
    for (const char *bad : {"=>1", ">=1..2", ".1", "1.", "^", "~~1", "> = 1", "1,2", ">=1.2 <2 ||"}) refusal(bad);
}

// Random texts of the range alphabet: each is parsed or refused with a message naming the range,
// never a crash; and whatever parses answers contains() for any version.
TEST(ModuleVersionRange, RandomTextsNeverCrash) {
    std::mt19937 rng(35);
    const std::string alphabet = "0123456789.<>=^~|*xv- ";
    for (int i = 0; i < 20000; ++i) {
        std::string text(rng() % 16, ' ');
        for (auto &c : text) c = alphabet[rng() % alphabet.size()];
        auto r = VersionRange::parse(text);
        if (!r) {
            EXPECT_NE(r.error().message.find("the version range"), std::string::npos) << text << ": " << r.error().message;
            continue;
        }
        (void)r.value().contains("1.2.3");
        (void)r.value().best_of({"0.0.0", "1.2.3", "999999999.0.0"});
    }
}

TEST(PluginVersion, ParsesMajorMinorPatchOnly) {
    EXPECT_TRUE(parse_plugin_version("1.2.3"));
    EXPECT_TRUE(parse_plugin_version("v0.0.1"));
    for (const char *bad : {"", "1", "1.2", "1.2.3-rc1", "1.2.3.4", "latest", "1.2.x", "-1.2.3"})
        EXPECT_FALSE(parse_plugin_version(bad)) << bad;
}

TEST(ManifestRequires, PluginsAsNamesOrRanges) {
    const std::string head = R"({"name":"p","kind":"plugin","version":"1.0.0","abi_version":"2.0.0","library":"libp.so","provides":{"actions":["p"]},)";
    auto names = parse_manifest(head + R"("requires":{"plugins":["bash","jupyter"]}})", "/x");
    ASSERT_TRUE(names) << names.error().message;
    EXPECT_EQ(names.value().requires_plugins, (std::vector<std::string>{"bash", "jupyter"}));
    EXPECT_EQ(names.value().plugin_ranges.at("jupyter"), "");
    auto ranges = parse_manifest(head + R"("requires":{"plugins":{"jupyter":">=1.2 <2","bash":"*"}}})", "/x");
    ASSERT_TRUE(ranges) << ranges.error().message;
    EXPECT_EQ(ranges.value().requires_plugins, (std::vector<std::string>{"jupyter", "bash"}));  // the file's order
    EXPECT_EQ(ranges.value().plugin_ranges.at("jupyter"), ">=1.2 <2");
    auto bad = parse_manifest(head + R"("requires":{"plugins":{"jupyter":">=1.2 <<2"}}})", "/x");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("requires.plugins.jupyter: the version range"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(parse_manifest(head + R"("requires":{"plugins":{"jupyter":2}}})", "/x"));
    EXPECT_FALSE(parse_manifest(head + R"("requires":{"plugins":{"../x":"1"}}})", "/x"));
    EXPECT_FALSE(parse_manifest(head + R"("requires":{"plugins":"jupyter"}})", "/x"));
}
