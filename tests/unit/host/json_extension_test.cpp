// The host's JSON service for plugins (host/modules/json_extension.cpp, ext/json.h): what it writes is
// what nlohmann parses back value for value, every misuse is refused with a reason that sticks, and the
// reader answers through JSON pointers without ever throwing.
#include "modules/json_extension.hpp"

#include <gtest/gtest.h>

#include <actionhost/common/json_io.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace actionhost::host;
using nlohmann::json;

namespace {

const ah_ext_json_t &J = json_extension();

// A writer freed at the end of the test.
struct Writer {
    ah_json_writer_t *w = J.writer_new();
    ~Writer() { J.writer_free(w); }
    std::string finish() {
        ah_bytes_t out{};
        const ah_status_t s = J.finish(w, &out);
        EXPECT_EQ(s, AH_OK) << (J.writer_error(w) ? J.writer_error(w) : "");
        return s == AH_OK ? std::string(out.ptr, out.len) : std::string();
    }
    std::string error() const { return J.writer_error(w) ? J.writer_error(w) : ""; }
};

struct Doc {
    ah_json_doc_t *d;
    explicit Doc(std::string_view text) : d(J.parse(ah_bytes_t{text.data(), text.size()})) {}
    ~Doc() { J.doc_free(d); }
};

ah_bytes_t bytes(std::string_view s) { return {s.data(), s.size()}; }

// Writes `v` through the service, as a plugin would, key by key.
void write_value(ah_json_writer_t *w, const char *key, const json &v) {
    switch (v.type()) {
        case json::value_t::object:
            J.begin_object(w, key);
            for (auto it = v.begin(); it != v.end(); ++it) write_value(w, it.key().c_str(), it.value());
            J.end(w);
            break;
        case json::value_t::array:
            J.begin_array(w, key);
            for (const auto &e : v) write_value(w, nullptr, e);
            J.end(w);
            break;
        case json::value_t::string: J.put_string_n(w, key, bytes(v.get_ref<const std::string &>())); break;
        case json::value_t::boolean: J.put_bool(w, key, v.get<bool>()); break;
        case json::value_t::number_float: J.put_double(w, key, v.get<double>()); break;
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: J.put_int(w, key, v.get<int64_t>()); break;
        default: J.put_null(w, key); break;
    }
}

// A random value with the strings a plugin meets: quotes, backslashes, control bytes, NULs, non-ASCII.
json random_value(std::mt19937 &rng, int depth) {
    const char *pieces[] = {"\"", "\\", "\n", "\t", "\x01", "(a NUL)", "é", "漢", "🙂", "a", "/", "~", "</script>", "\x7f"};
    auto text = [&] {
        std::string s;
        const int n = static_cast<int>(rng() % 6);
        for (int i = 0; i < n; ++i) {
            const size_t k = rng() % std::size(pieces);
            s += k == 5 ? std::string(1, '\0') : std::string(pieces[k]);
        }
        return s;
    };
    switch (depth > 3 ? rng() % 5 : rng() % 7) {
        case 0: return nullptr;
        case 1: return rng() % 2 == 0;
        case 2: return static_cast<int64_t>(rng()) - static_cast<int64_t>(rng()) * 4096;
        case 3: return std::ldexp(static_cast<double>(rng()) - 2e9, static_cast<int>(rng() % 40) - 20);
        case 4: return text();
        case 5: {
            json o = json::object();
            const int n = static_cast<int>(rng() % 4);
            // Keys are C strings in the API: no NUL inside one.
            for (int i = 0; i < n; ++i) {
                std::string key = text() + std::to_string(i);
                std::replace(key.begin(), key.end(), '\0', '0');
                o[key] = random_value(rng, depth + 1);
            }
            return o;
        }
        default: {
            json a = json::array();
            const int n = static_cast<int>(rng() % 4);
            for (int i = 0; i < n; ++i) a.push_back(random_value(rng, depth + 1));
            return a;
        }
    }
}

}  // namespace

TEST(JsonExtension, WhatItWritesParsesBackToTheSameValue) {
    std::mt19937 rng(20261129);
    for (int i = 0; i < 500; ++i) {
        const json v = random_value(rng, 0);
        Writer w;
        write_value(w.w, nullptr, v);
        const std::string text = w.finish();
        auto back = actionhost::common::parse_json(text);
        ASSERT_TRUE(back) << text << ": " << back.error().message;
        EXPECT_EQ(back.value(), v) << text;
        EXPECT_EQ(text.find('\n'), std::string::npos) << "one line: " << text;
    }
}

TEST(JsonExtension, AnObservationKeepsItsKeysInTheOrderWritten) {
    Writer w;
    J.begin_object(w.w, nullptr);
    J.put_string(w.w, "observation", "run");
    J.put_string(w.w, "content", "say \"hi\"\\\n");
    J.begin_object(w.w, "extras");
    J.put_int(w.w, "exit_code", -1);
    J.put_double(w.w, "took", 0.25);
    J.put_bool(w.w, "timed_out", 7);
    J.put_null(w.w, "pid");
    J.begin_array(w.w, "lines");
    J.put_string(w.w, nullptr, "a");
    J.put_int(w.w, nullptr, std::numeric_limits<int64_t>::min());
    J.end(w.w);
    J.end(w.w);
    J.end(w.w);
    const std::string first = w.finish();
    EXPECT_EQ(first,
              R"({"observation":"run","content":"say \"hi\"\\\n","extras":{"exit_code":-1,"took":0.25,"timed_out":true,)"
              R"("pid":null,"lines":["a",-9223372036854775808]}})");
    // Finishing again gives the same text.
    EXPECT_EQ(w.finish(), first);
}

TEST(JsonExtension, InvalidUtf8IsWrittenAsReplacementCharactersNotRefused) {
    Writer w;
    const std::string bad = "ok \xff\xfe end \xc3";
    EXPECT_EQ(J.put_string_n(w.w, nullptr, bytes(bad)), AH_OK);
    EXPECT_EQ(w.finish(), "\"ok \xEF\xBF\xBD\xEF\xBF\xBD end \xEF\xBF\xBD\"");
}

TEST(JsonExtension, EveryMisuseIsRefusedWithAReasonThatSticks) {
    struct Case {
        const char *name;
        void (*steps)(ah_json_writer_t *);
        ah_status_t status;
        const char *reason;
    };
    const Case cases[] = {
        {"key missing in an object", [](ah_json_writer_t *w) { J.begin_object(w, nullptr); J.put_int(w, nullptr, 1); },
         AH_ERR_INVALID_ARGUMENT, "put_int inside an object without a key"},
        {"key inside an array", [](ah_json_writer_t *w) { J.begin_array(w, nullptr); J.put_null(w, "k"); },
         AH_ERR_INVALID_ARGUMENT, "put_null with key \"k\" inside an array"},
        {"key at the top", [](ah_json_writer_t *w) { J.put_string(w, "top", "x"); },
         AH_ERR_INVALID_ARGUMENT, "the top-level value has no key"},
        {"a second top-level value", [](ah_json_writer_t *w) { J.put_int(w, nullptr, 1); J.put_int(w, nullptr, 2); },
         AH_ERR_STATE, "after the top-level value was complete"},
        {"the same key twice", [](ah_json_writer_t *w) { J.begin_object(w, nullptr); J.put_int(w, "a", 1); J.put_bool(w, "a", 0); },
         AH_ERR_INVALID_ARGUMENT, "put_bool with key \"a\", which this object already has"},
        {"end with nothing open", [](ah_json_writer_t *w) { J.put_int(w, nullptr, 1); J.end(w); },
         AH_ERR_STATE, "end with no object or array open"},
        {"NaN", [](ah_json_writer_t *w) { J.put_double(w, nullptr, std::nan("")); },
         AH_ERR_INVALID_ARGUMENT, "not finite"},
        {"infinity", [](ah_json_writer_t *w) { J.put_double(w, nullptr, HUGE_VAL); },
         AH_ERR_INVALID_ARGUMENT, "not finite"},
        {"a NULL string", [](ah_json_writer_t *w) { J.put_string(w, nullptr, nullptr); },
         AH_ERR_INVALID_ARGUMENT, "NULL string"},
        {"NULL bytes with a length", [](ah_json_writer_t *w) { J.put_string_n(w, nullptr, ah_bytes_t{nullptr, 3}); },
         AH_ERR_INVALID_ARGUMENT, "NULL pointer of non-zero length"},
    };
    for (const Case &c : cases) {
        Writer w;
        c.steps(w.w);
        ah_bytes_t out{"untouched", 9};
        EXPECT_EQ(J.finish(w.w, &out), c.status) << c.name;
        EXPECT_EQ(std::string(out.ptr, out.len), "untouched") << c.name;
        EXPECT_NE(w.error().find(c.reason), std::string::npos) << c.name << ": " << w.error();
        // The first refusal sticks: later calls return it and write nothing, the reason stays the first.
        const std::string first = w.error();
        EXPECT_EQ(J.put_int(w.w, nullptr, 5), c.status) << c.name;
        EXPECT_EQ(J.end(w.w), c.status) << c.name;
        EXPECT_EQ(w.error(), first) << c.name;
    }
}

TEST(JsonExtension, FinishRefusesAnUnclosedOrEmptyValue) {
    Writer open;
    J.begin_object(open.w, nullptr);
    J.begin_array(open.w, "a");
    ah_bytes_t out{};
    EXPECT_EQ(J.finish(open.w, &out), AH_ERR_STATE);
    EXPECT_EQ(open.error(), "finish with 2 object(s) or array(s) still open");
    Writer empty;
    EXPECT_EQ(J.finish(empty.w, &out), AH_ERR_STATE);
    EXPECT_EQ(empty.error(), "finish before any value was written");
    EXPECT_EQ(J.writer_error(Writer().w), nullptr);
}

TEST(JsonExtension, NestingStopsAtTheParsersDepth) {
    Writer w;
    int opened = 0;
    while (opened < 1000 && J.begin_array(w.w, nullptr) == AH_OK) ++opened;
    EXPECT_EQ(opened, actionhost::common::kMaxJsonDepth);
    EXPECT_NE(w.error().find("deeper than 256 levels"), std::string::npos) << w.error();
}

TEST(JsonExtension, NullHandlesAreRefusedNotFollowed) {
    EXPECT_EQ(J.begin_object(nullptr, nullptr), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.put_string(nullptr, nullptr, nullptr), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.put_double(nullptr, nullptr, std::nan("")), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.end(nullptr), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.finish(nullptr, nullptr), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.writer_error(nullptr), nullptr);
    J.writer_free(nullptr);
    J.doc_free(nullptr);
    EXPECT_EQ(J.type_at(nullptr, ""), AH_JSON_MISSING);
    ah_bytes_t out{};
    EXPECT_EQ(J.get_string(nullptr, "", &out), AH_ERR_INVALID_ARGUMENT);
    Doc d("{}");
    EXPECT_EQ(J.get_size(d.d, "", nullptr), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.type_at(d.d, nullptr), AH_JSON_MISSING);
}

TEST(JsonExtension, PointersReadEveryTypeAndTellMissingFromOtherTypes) {
    Doc d(R"({"action":"run","args":{"command":"echo \"a\\b\" \u0000x","timeout":30,"ratio":2.5,"whole":3.0,)"
          R"("big":1e30,"neg":-7,"huge":18446744073709551615,"blocking":false,"none":null,"paths":["p0","p1"],)"
          R"("a/b":1,"m~n":2}})");
    ASSERT_EQ(J.doc_error(d.d), nullptr);
    ah_bytes_t s{};
    ASSERT_EQ(J.get_string(d.d, "/args/command", &s), AH_OK);
    EXPECT_EQ(std::string(s.ptr, s.len), std::string("echo \"a\\b\" \0x", 13));
    EXPECT_EQ(s.ptr[s.len], '\0');
    int64_t i = 0;
    EXPECT_EQ(J.get_int(d.d, "/args/timeout", &i), AH_OK);
    EXPECT_EQ(i, 30);
    EXPECT_EQ(J.get_int(d.d, "/args/whole", &i), AH_OK);
    EXPECT_EQ(i, 3);
    EXPECT_EQ(J.get_int(d.d, "/args/neg", &i), AH_OK);
    EXPECT_EQ(i, -7);
    i = 99;
    EXPECT_EQ(J.get_int(d.d, "/args/ratio", &i), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.get_int(d.d, "/args/big", &i), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.get_int(d.d, "/args/huge", &i), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(i, 99) << "untouched on a refusal";
    double x = 0;
    EXPECT_EQ(J.get_double(d.d, "/args/ratio", &x), AH_OK);
    EXPECT_EQ(x, 2.5);
    EXPECT_EQ(J.get_double(d.d, "/args/timeout", &x), AH_OK);
    EXPECT_EQ(x, 30.0);
    int32_t b = 5;
    EXPECT_EQ(J.get_bool(d.d, "/args/blocking", &b), AH_OK);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(J.get_bool(d.d, "/args/timeout", &b), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.get_string(d.d, "/args/paths/1", &s), AH_OK);
    EXPECT_EQ(std::string(s.ptr, s.len), "p1");
    EXPECT_EQ(J.get_string(d.d, "/args/paths/2", &s), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.get_int(d.d, "/args/a~1b", &i), AH_OK);
    EXPECT_EQ(i, 1);
    EXPECT_EQ(J.get_int(d.d, "/args/m~0n", &i), AH_OK);
    EXPECT_EQ(i, 2);
    size_t n = 0;
    EXPECT_EQ(J.get_size(d.d, "/args/paths", &n), AH_OK);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(J.get_size(d.d, "/args", &n), AH_OK);
    EXPECT_EQ(n, 12u);
    EXPECT_EQ(J.get_size(d.d, "/action", &n), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.type_at(d.d, ""), AH_JSON_OBJECT);
    EXPECT_EQ(J.type_at(d.d, "/args/none"), AH_JSON_NULL);
    EXPECT_EQ(J.type_at(d.d, "/args/blocking"), AH_JSON_BOOL);
    EXPECT_EQ(J.type_at(d.d, "/args/ratio"), AH_JSON_NUMBER);
    EXPECT_EQ(J.type_at(d.d, "/args/huge"), AH_JSON_NUMBER);
    EXPECT_EQ(J.type_at(d.d, "/args/paths"), AH_JSON_ARRAY);
    EXPECT_EQ(J.type_at(d.d, "/args/command"), AH_JSON_STRING);
    for (const char *bad : {"/args/nothing", "args", "/args/paths/x", "/args/paths/-", "/args/~2", "/action/0", "/args/paths/01"})
        EXPECT_EQ(J.type_at(d.d, bad), AH_JSON_MISSING) << bad;
}

TEST(JsonExtension, KeysAreWalkedInByteOrderAndTextsAreHandedOnWhole) {
    Doc d(R"({"b":{"x":[1,"two",{"k":null}]},"a":1,"c":true})");
    size_t n = 0;
    ASSERT_EQ(J.get_size(d.d, "", &n), AH_OK);
    std::string keys;
    for (size_t i = 0; i < n; ++i) {
        ah_bytes_t k{};
        ASSERT_EQ(J.get_key(d.d, "", i, &k), AH_OK);
        keys += std::string(k.ptr, k.len) + ",";
    }
    EXPECT_EQ(keys, "a,b,c,");
    ah_bytes_t k{};
    EXPECT_EQ(J.get_key(d.d, "", 3, &k), AH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(J.get_key(d.d, "/b/x", 0, &k), AH_ERR_INVALID_ARGUMENT);
    ah_bytes_t t{};
    ASSERT_EQ(J.get_text(d.d, "/b", &t), AH_OK);
    ah_bytes_t t2{};
    ASSERT_EQ(J.get_text(d.d, "/c", &t2), AH_OK);
    // Both views live until doc_free, the first after the second was taken.
    EXPECT_EQ(std::string(t.ptr, t.len), R"({"x":[1,"two",{"k":null}]})");
    EXPECT_EQ(std::string(t2.ptr, t2.len), "true");
}

TEST(JsonExtension, AValueOfADocumentIsPassedThroughUnchanged) {
    Doc d(R"({"args":{"env":{"B":"2","A":"1 \"q\""}}})");
    Writer w;
    J.begin_object(w.w, nullptr);
    EXPECT_EQ(J.put_value_of(w.w, "env", d.d, "/args/env"), AH_OK);
    EXPECT_EQ(J.put_value_of(w.w, "gone", d.d, "/args/none"), AH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(w.error().find("holds no value at \"/args/none\""), std::string::npos) << w.error();
    Writer ok;
    J.begin_array(ok.w, nullptr);
    J.put_value_of(ok.w, nullptr, d.d, "/args/env");
    J.end(ok.w);
    EXPECT_EQ(ok.finish(), R"([{"A":"1 \"q\"","B":"2"}])");
}

TEST(JsonExtension, TextThatIsNotJsonGivesADocumentThatSaysWhy) {
    for (std::string_view bad : {std::string_view(""), std::string_view("{\"a\":"), std::string_view("{} extra"),
                                 std::string_view("\"\xff\""), std::string_view("nul")}) {
        Doc d(bad);
        ASSERT_NE(d.d, nullptr);
        ASSERT_NE(J.doc_error(d.d), nullptr) << bad;
        EXPECT_GT(std::string(J.doc_error(d.d)).size(), 5u);
        EXPECT_EQ(J.type_at(d.d, ""), AH_JSON_MISSING) << bad;
    }
    Doc deep(std::string(300, '[') + std::string(300, ']'));
    ASSERT_NE(J.doc_error(deep.d), nullptr);
    EXPECT_NE(std::string(J.doc_error(deep.d)).find("deeper than 256"), std::string::npos);
    ah_json_doc_t *null_text = J.parse(ah_bytes_t{nullptr, 4});
    EXPECT_NE(J.doc_error(null_text), nullptr);
    J.doc_free(null_text);
}
