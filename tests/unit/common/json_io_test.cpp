// parse_json reads with simdjson and falls back to nlohmann's parser for what simdjson refuses; it must
// give exactly what nlohmann's parser alone gives: the same values with the same number types, the same
// refusals with the same texts, on any thread and at any size.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/simdjson_document.hpp>

#include "json_text_generator.hpp"

namespace common = actionhost::common;

namespace {

// Equal values and equal types all the way down: nlohmann's == counts 0u and 0 as equal, which would hide
// a number read with the wrong type.
bool same_value(const nlohmann::json &a, const nlohmann::json &b) {
    if (a.type() != b.type()) return false;
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
            if (it.key() != jt.key() || !same_value(it.value(), jt.value())) return false;
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!same_value(a[i], b[i])) return false;
        return true;
    }
    return a.dump() == b.dump();
}

// "" when parse_json agrees with nlohmann's parser alone on `text`, else what differs.
std::string disagreement(const std::string &text) {
    const auto fast = common::parse_json(text);
    const auto exact = common::detail::parse_json_with_nlohmann_only(text);
    if (bool(fast) != bool(exact))
        return std::string("accepted by ") + (fast ? "parse_json only" : "nlohmann only") +
               (exact ? "" : ": " + exact.error().message);
    if (!fast) return fast.error().message == exact.error().message ? "" : fast.error().message + " vs " + exact.error().message;
    return same_value(fast.value(), exact.value()) ? "" : fast.value().dump() + " vs " + exact.value().dump();
}

}  // namespace

TEST(ParseJson, NumbersKeepTheTypesNlohmannGivesThem) {
    for (const char *text : {"0", "-0", "5", "-5", "-0.0", "1e2", "1.0", "9223372036854775807", "9223372036854775808",
                             "-9223372036854775808", "18446744073709551615", "18446744073709551616",
                             "-9223372036854775809", "1e400", "4.9e-324", "[0,-0,0.0,-0.0]", "{\"a\":-0,\"b\":0}"})
        EXPECT_EQ(disagreement(text), "") << text;
    auto zero = common::parse_json("0");
    ASSERT_TRUE(zero);
    EXPECT_TRUE(zero.value().is_number_unsigned());
    auto minus_zero = common::parse_json("-0");
    ASSERT_TRUE(minus_zero);
    EXPECT_FALSE(minus_zero.value().is_number_unsigned());
    EXPECT_TRUE(minus_zero.value().is_number_integer());
}

TEST(ParseJson, StringsDuplicatesAndDepthAsNlohmann) {
    for (const std::string &text :
         {std::string(R"("\u00e9\ud83d\ude00\n\"\\\/\u0000")"), std::string(R"("\ud800")"), std::string(R"("\udc00")"),
          std::string("\"\xed\xa0\x80\""), std::string("\"\xc0\xaf\""), std::string("\"a\x01\""),
          std::string(R"({"a":1,"a":[2],"a":{"b":3}})"), std::string("\xef\xbb\xbf{}"), std::string(" \t\r\n[] "),
          std::string("[1,]"), std::string("{} x"), std::string("/* c */ {}"), std::string(""), std::string("tru"),
          std::string("[NaN]")})
        EXPECT_EQ(disagreement(text), "") << text;
    for (int depth : {63, 64, 65, 256, 257, 10000}) {
        const std::string text = std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
        EXPECT_EQ(disagreement(text), "") << depth;
    }
    const std::string deep = std::string(300, '[') + std::string(300, ']');
    EXPECT_EQ(common::parse_json(deep).error().message, "JSON nested deeper than 256 levels");
}

TEST(ParseJson, AgreesWithNlohmannOnGeneratedAndBrokenTexts) {
    actionhost::testing::JsonTextGenerator gen(20261127);
    int accepted = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::string text = gen.next(i % 3 == 0);
        const std::string why = disagreement(text);
        ASSERT_EQ(why, "") << "text #" << i << ": " << text;
        accepted += common::parse_json(text) ? 1 : 0;
    }
    // Both kinds were compared: valid documents and refused ones.
    EXPECT_GT(accepted, 2000);
    EXPECT_LT(accepted, 19000);
}

TEST(ParseJson, DocumentsOfEverySizeOnManyThreads) {
    // Around the size up to which each thread reuses its parser, and far beyond; each thread checks its own
    // values, so a parser shared by mistake shows as a wrong value.
    auto document = [](int thread, size_t pad) {
        return "{\"thread\":" + std::to_string(thread) + ",\"pad\":\"" + std::string(pad, 'x') + "\"}";
    };
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (size_t size : {size_t(100), size_t(16 * 1024 - 1), size_t(16 * 1024), size_t(16 * 1024 + 1),
                                size_t(3 << 20), size_t(200)})
                for (int round = 0; round < 20; ++round) {
                    // The text's size is `size` give or take its 20 bytes of frame.
                    auto parsed = common::parse_json(document(t, size));
                    if (!parsed || parsed.value()["thread"] != t || parsed.value()["pad"].get<std::string>().size() != size)
                        ++failures[static_cast<size_t>(t)];
                }
        });
    for (auto &th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[static_cast<size_t>(t)], 0) << "thread " << t;
}

TEST(ParseJson, TextsOverTheSimdjsonLimitAreReadByNlohmannAlike) {
    // Over kSimdjsonMaxBytes (whitespace counts, and keeps the test quick under sanitizers): the same
    // values as nlohmann's, and a broken text refused alike.
    const std::string pad(9u * 1024 * 1024, ' ');
    const std::string values = "[0,-0,-1,1.5,\"x\"," + pad + "{\"a\":[true,null]}]";
    EXPECT_EQ(disagreement(values), "");
    EXPECT_EQ(common::parse_json(values).value().size(), 6u);
    EXPECT_TRUE(common::parse_json(values).value()[0].is_number_unsigned());
    EXPECT_EQ(disagreement(values.substr(0, values.size() - 1)), "");
    const std::string text = "{\"a\":\"" + std::string(9u * 1024 * 1024, 'x') + "\"}";
    EXPECT_EQ(disagreement(text), "");
}

TEST(SimdjsonDocument, AVisitMayReadAnotherDocument) {
    // The thread's parser is shared by every caller on the thread: a read inside a visit gets a parser of
    // its own, and the outer document stays whole.
    std::string outer_value, inner_value;
    const bool read = common::with_simdjson_document(R"({"a":"outer"})", [&](simdjson::dom::element outer) {
        common::with_simdjson_document(R"({"a":"inner"})", [&](simdjson::dom::element inner) {
            inner_value = std::string(inner["a"].get_string().value());
        });
        outer_value = std::string(outer["a"].get_string().value());
    });
    EXPECT_TRUE(read);
    EXPECT_EQ(outer_value, "outer");
    EXPECT_EQ(inner_value, "inner");
}

TEST(ParseJson, RefusesDeepNestingAndInvalidUtf8WhichTheWriterReplaces) {
    EXPECT_TRUE(common::parse_json("{\"a\":[1,2]}"));
    std::string deep(10000, '[');
    deep += std::string(10000, ']');
    auto r = common::parse_json(deep);
    EXPECT_FALSE(r);
    EXPECT_NE(r.error().message.find("nested deeper"), std::string::npos);
    EXPECT_FALSE(common::parse_json("\"\xff\""));
    EXPECT_EQ(common::dump_json(nlohmann::json(std::string("x\xffy"))), "\"x\xef\xbf\xbdy\"");
}
