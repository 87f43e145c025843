// Output assembly: stream filters, the bounded observation text, the prompt marker scanner, the exact
// wire texts and the observation JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actionhost/common/text.hpp"
#include "bash_session.hpp"
#include "messages.hpp"
#include "observation_text.hpp"
#include "prompt_marker.hpp"
#include "run_request.hpp"
#include "stream_filters.hpp"
#include "whole_observation.hpp"
#include <actionhost/common/python_repr.hpp>

using namespace actionhost::bash;

namespace {

// Feeds `s` one byte at a time: the worst split a terminal read can produce.
std::string normalize_bytewise(const std::string &s) {
    OutputNormalizer n;
    std::string out;
    for (char c : s) out += n.feed(std::string_view(&c, 1));
    out += n.flush();
    return out;
}

std::string lines(int from, int to) {
    std::string s;
    for (int i = from; i <= to; ++i) s += "Line " + std::to_string(i) + "\n";
    return s;
}

}  // namespace

TEST(StreamFilters, StripsEscapesAndCrLfAcrossChunkBoundaries) {
    const std::string raw = "\x1b[1;31mred\x1b[0m\r\nok\x1b]0;title\x07 done\x1b(B\r\nlone\rcr";
    EXPECT_EQ(normalize_bytewise(raw), "red\nok done\nlone\rcr");
    OutputNormalizer whole;
    EXPECT_EQ(whole.feed(raw) + whole.flush(), "red\nok done\nlone\rcr");
}

TEST(StreamFilters, KeepsMultibyteCharactersSplitAcrossReads) {
    const std::string s = "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80";
    EXPECT_EQ(normalize_bytewise(s), s);
    Utf8Chunker c;
    std::string out;
    c.feed("a\xE2\x82", out);
    EXPECT_EQ(out, "a");  // the incomplete euro sign is held back
    c.feed("\xAC", out);
    EXPECT_EQ(out, "a\xE2\x82\xAC");
}

TEST(StreamFilters, ReplacesInvalidUtf8) {
    EXPECT_EQ(normalize_bytewise("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
    OutputNormalizer n;
    std::string out = n.feed("x\xC3");
    out += n.flush();  // stream ends inside a character
    EXPECT_EQ(out, "x\xEF\xBF\xBD");
}

TEST(ObservationText, StripsLikeOpenHands) {
    ObservationText t;
    t.append("\n\n  hello\n");
    t.append("world  \n\n");
    EXPECT_EQ(t.finish("", true), "hello\nworld");
    ObservationText blank;
    blank.append(" \n\t ");
    EXPECT_TRUE(blank.blank());
    EXPECT_EQ(blank.finish("", true), "");
}

TEST(ObservationText, RemovesEchoedInputOnlyAtTheFront) {
    ObservationText t;
    t.append("Alice\nHello Alice\n");
    EXPECT_EQ(t.finish("Alice", true), "Hello Alice");
    EXPECT_EQ(t.finish("Bob", true), "Alice\nHello Alice");
}

TEST(ObservationText, TruncatesExactlyAsTheWholeTextRule) {
    // Compare the streamed, bounded result with the rule applied to the whole text at once.
    for (int n : {10, 2000, 4000, 5000, 50000, 200000}) {
        const std::string all = lines(1, n);
        ObservationText t;
        for (size_t i = 0; i < all.size(); i += 4093) t.append(std::string_view(all).substr(i, 4093));
        const std::string expected = actionhost::common::truncate_observation(actionhost::common::rstrip(all));
        EXPECT_EQ(t.finish("", true), expected) << n;
    }
}

TEST(ObservationText, MemoryStaysBoundedWhileMegabytesStreamThrough) {
    ObservationText t;
    const std::string chunk = lines(1, 5000);  // ~50 KB
    size_t max_retained = 0;
    for (int i = 0; i < 400; ++i) {  // ~20 MB
        t.append(chunk);
        max_retained = std::max(max_retained, t.retained_bytes());
    }
    EXPECT_LT(max_retained, 400u * 1024u);
    const std::string out = t.finish("", true);
    EXPECT_NE(out.find("[... Observation truncated due to length ...]"), std::string::npos);
    EXPECT_EQ(out.substr(out.size() - 9), "Line 5000");
    EXPECT_EQ(out.substr(0, 7), "Line 1\n");
}

TEST(ObservationText, UnicodeCountsCharactersNotBytes) {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "\xC3\xA9";  // 20000 characters, 40000 bytes
    ObservationText t;
    t.append(s);
    EXPECT_EQ(t.finish("", true), s);  // under 30000 characters: not truncated
    std::string big = s + s;
    ObservationText u;
    u.append(big);
    EXPECT_EQ(u.finish("", true), actionhost::common::truncate_observation(big));
}

TEST(ObservationText, HiddenKeepsMoreAndMergesInOrder) {
    const std::string all = lines(1, 10000);
    ObservationText t;
    t.raise_limit(4'000'000);
    t.append(all);
    EXPECT_EQ(t.finish("", false), actionhost::common::rstrip(all));
    EXPECT_EQ(t.finish("", true), actionhost::common::truncate_observation(actionhost::common::rstrip(all)));

    ObservationText a, b;
    a.append("first\n");
    b.append("second\n");
    a.append(std::move(b));
    EXPECT_EQ(a.finish("", true), "first\nsecond");
    EXPECT_TRUE(b.blank());
}

TEST(PromptMarker, ScannerSplitsOutputFromMarkersAtAnyChunking) {
    PromptMarker m("0123456789abcdef");
    const std::string stream = "out1\n" + m.begin() + "0\x1f\x1froot\x1fhost\x1f\x1f/tmp/a\x1f b\x1f/usr/bin:/bin\x1f/tmp/a\x1f b" + m.end() +
                               "bg\n" + m.begin() + "127\x1f" "42\x1fu\x1fh\x1f" "7\x1f/\x1f\x1f/" + m.end();
    for (size_t step : {size_t(1), size_t(2), size_t(7), stream.size()}) {
        MarkerScanner sc(m);
        std::string out;
        std::vector<PromptInfo> prompts;
        for (size_t i = 0; i < stream.size(); i += step)
            sc.feed(std::string_view(stream).substr(i, step), [&](std::string_view o) { out += o; },
                    [&](const PromptInfo &p) {
                        out += "|P|";
                        prompts.push_back(p);
                    });
        out += sc.flush();
        EXPECT_EQ(out, "out1\n|P|bg\n|P|") << step;
        ASSERT_EQ(prompts.size(), 2u);
        EXPECT_EQ(prompts[0].exit_code, 0);
        EXPECT_EQ(prompts[0].pid, -1);
        EXPECT_EQ(prompts[0].username, "root");
        EXPECT_EQ(prompts[0].hostname, "host");
        EXPECT_EQ(prompts[0].path, "/usr/bin:/bin");
        EXPECT_EQ(prompts[0].working_dir, "/tmp/a\x1f b");  // any byte, US too
        EXPECT_EQ(prompts[1].exit_code, 127);
        EXPECT_EQ(prompts[1].pid, 42);
        EXPECT_EQ(prompts[1].path, "");
        EXPECT_EQ(prompts[1].sync, "7");
        EXPECT_EQ(prompts[1].working_dir, "/");
    }
}

// The prompt ends DIR US PATH US DIR, both printed as they are. Every pair from a small alphabet rich in
// US bytes (all 3^0..3^4 directories by 3^0..3^6 PATHs) is split back exactly when PATH holds no US byte,
// and when the directory holds none and PATH does not spell it around its US bytes.
TEST(PromptMarker, DirectoryAndPathSplitBackExactly) {
    const std::string alphabet = "a/\x1f";
    auto all_of_length = [&](size_t n) {
        std::vector<std::string> out{""};
        for (size_t i = 0; i < n; ++i) {
            std::vector<std::string> next;
            for (const auto &s : out)
                for (char c : alphabet) next.push_back(s + c);
            out = std::move(next);
        }
        return out;
    };
    std::vector<std::string> dirs, paths;
    for (size_t n = 0; n <= 4; ++n)
        for (auto &s : all_of_length(n)) dirs.push_back(s);
    for (size_t n = 0; n <= 6; ++n)
        for (auto &s : all_of_length(n)) paths.push_back(s);
    size_t checked = 0;
    for (const auto &dir : dirs)
        for (const auto &path : paths) {
            const bool path_has_us = path.find('\x1f') != std::string::npos;
            const bool dir_has_us = dir.find('\x1f') != std::string::npos;
            const bool spells_dir = path.find(dir + '\x1f') == 0 || path.find('\x1f' + dir) != std::string::npos;
            if (path_has_us && (dir_has_us || spells_dir)) continue;
            const PromptInfo p = PromptMarker::parse_fields("0\x1f\x1fu\x1fh\x1f\x1f" + dir + '\x1f' + path + '\x1f' + dir);
            ASSERT_EQ(p.working_dir, dir) << "PATH " << path;
            ASSERT_EQ(p.path, path) << "directory " << dir;
            ++checked;
        }
    EXPECT_GT(checked, 40000u);
    // A PATH of US bytes around two letters (every US position a candidate) is split right, and a
    // prompt whose directory is 40 000 bytes deep (bash keeps one reached a `cd` at a time) is a prompt.
    const std::string us_path = std::string(30000, '\x1f') + "a" + std::string(29999, '\x1f') + "b";
    const PromptInfo odd = PromptMarker::parse_fields("0\x1f\x1fu\x1fh\x1f\x1f\x1f" + us_path + '\x1f');
    EXPECT_EQ(odd.working_dir, "");
    EXPECT_EQ(odd.path, us_path);
    const std::string deep = "/" + std::string(40000, 'd');
    PromptMarker m("0123456789abcdef");
    MarkerScanner scanner(m);
    std::vector<PromptInfo> seen;
    const std::string stream = m.begin() + "0\x1f\x1fu\x1fh\x1f\x1f" + deep + "\x1f/bin\x1f" + deep + m.end();
    for (size_t at = 0; at < stream.size(); at += 4096)  // as a terminal's reads bring it
        scanner.feed(std::string_view(stream).substr(at, 4096), [](std::string_view) {}, [&](const PromptInfo &p) { seen.push_back(p); });
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].working_dir, deep);
    EXPECT_EQ(seen[0].path, "/bin");
    // What the shell cannot have printed is no prompt at all.
    EXPECT_EQ(PromptMarker::parse_fields("0\x1f\x1fu\x1fh\x1f\x1f/a").exit_code, -1);
    EXPECT_EQ(PromptMarker::parse_fields("0\x1f\x1fu\x1fh\x1f\x1f/a\x1f/bin\x1f/b").working_dir, "");
}

TEST(PromptMarker, PromptVariablesNeverHoldTheMarkerLiterally) {
    PromptMarker m(random_nonce());
    EXPECT_EQ(m.ps1().find(m.begin()), std::string::npos);
    EXPECT_EQ(m.ps1().find(m.end()), std::string::npos);
    EXPECT_EQ(m.prompt_setup().find(m.begin()), std::string::npos);
    EXPECT_NE(random_nonce(), random_nonce());
    // Output that merely looks like OpenHands' marker is output.
    MarkerScanner sc(m);
    std::string out;
    int prompts = 0;
    sc.feed("###PS1JSON###\n{\"exit_code\": \"0\"}\n###PS1END###\n", [&](std::string_view o) { out += o; },
            [&](const PromptInfo &) { ++prompts; });
    out += sc.flush();
    EXPECT_EQ(prompts, 0);
    EXPECT_EQ(out, "###PS1JSON###\n{\"exit_code\": \"0\"}\n###PS1END###\n");
}

TEST(Messages, ExactWireTexts) {
    EXPECT_EQ(multiple_commands_error({"ls", "pwd"}),
              "ERROR: Cannot execute multiple commands at once.\nPlease run each command separately OR chain them "
              "into a single command via && or ;\nProvided commands:\n(1) ls\n(2) pwd");
    EXPECT_EQ(completed_suffix(0), "\n[The command completed with exit code 0.]");
    EXPECT_EQ(completed_with_key_suffix(130, "C-c"), "\n[The command completed with exit code 130. CTRL+C was sent.]");
    const std::string tm =
        "You may wait longer to see additional output by sending empty command '', send other commands to interact "
        "with the current process, send keys (\"C-c\", \"C-z\", \"C-d\") to interrupt/kill the previous command "
        "before sending your new command, or use the timeout parameter in execute_bash for future commands.";
    EXPECT_EQ(no_change_timeout_suffix("10"), "\n[The command has no new output after 10 seconds. " + tm + "]");
    EXPECT_EQ(hard_timeout_suffix(2.5), "\n[The command timed out after 2.5 seconds. " + tm + "]");
    EXPECT_EQ(not_executed_suffix("ls"),
              "\n[Your command \"ls\" is NOT executed. The previous command is still running - You CANNOT send new "
              "commands until the previous command is completed. By setting `is_input` to `true`, you can interact "
              "with the current process: " + tm + "]");
}

TEST(Messages, PythonFloatRepr) {
    EXPECT_EQ(actionhost::common::python_repr_float(1.0), "1.0");
    EXPECT_EQ(actionhost::common::python_repr_float(2.5), "2.5");
    EXPECT_EQ(actionhost::common::python_repr_float(120.0), "120.0");
    EXPECT_EQ(actionhost::common::python_repr_float(0.1), "0.1");
    EXPECT_EQ(actionhost::common::python_repr_float(1e-05), "1e-05");
    EXPECT_EQ(actionhost::common::python_repr_float(0.0001), "0.0001");
    EXPECT_EQ(actionhost::common::python_repr_float(1e16), "1e+16");
    EXPECT_EQ(actionhost::common::python_repr_float(1234567.0), "1234567.0");
    EXPECT_EQ(actionhost::common::python_repr_float(123.456), "123.456");
}

TEST(Messages, RunObservationShape) {
    RunMetadata m;
    m.exit_code = 0;
    m.username = "root";
    m.hostname = "h";
    m.working_dir = "/w";
    m.py_interpreter_path = "";
    m.suffix = completed_suffix(0);
    const auto j = nlohmann::json::parse(run_observation_json("echo hi", "hi", m, false));
    EXPECT_EQ(j["message"], "Command `echo hi` executed with exit code 0.");
    EXPECT_EQ(j["observation"], "run");
    EXPECT_EQ(j["content"], "hi");
    EXPECT_EQ(j["success"], true);
    EXPECT_EQ(j["extras"]["command"], "echo hi");
    EXPECT_EQ(j["extras"]["hidden"], false);
    EXPECT_EQ(j["extras"]["metadata"]["pid"], -1);
    EXPECT_EQ(j["extras"]["metadata"]["prefix"], "");
    const auto d = nlohmann::json::parse(run_observation_json("", "x", RunMetadata{}, false));
    EXPECT_TRUE(d["extras"]["metadata"]["username"].is_null());
    EXPECT_TRUE(d["extras"]["metadata"]["py_interpreter_path"].is_null());
    EXPECT_EQ(d["success"], false);
    // A writer keeps its document between observations: each is whole and exact whatever the one before
    // held, and extras.stderr comes after "hidden" and goes with its observation.
    RunObservationWriter writer;
    EXPECT_EQ(writer.write("echo hi", "hi", m, false), run_observation_json("echo hi", "hi", m, false));
    m.stderr_text = "oops";
    m.exit_code = 2;
    m.suffix = completed_suffix(2);
    const std::string with_stderr = writer.write("ls x", "", m, true);
    EXPECT_EQ(with_stderr,
              R"({"message":"Command `ls x` executed with exit code 2.","observation":"run","content":"",)"
              R"("extras":{"command":"ls x","metadata":{"exit_code":2,"pid":-1,"username":"root","hostname":"h",)"
              R"("working_dir":"/w","py_interpreter_path":"","prefix":"","suffix":"\n[The command completed with exit code 2.]"},)"
              R"("hidden":true,"stderr":"oops"},"success":false})");
    EXPECT_EQ(writer.write("", "x", RunMetadata{}, false),
              R"({"message":"Command `` executed with exit code -1.","observation":"run","content":"x",)"
              R"("extras":{"command":"","metadata":{"exit_code":-1,"pid":-1,"username":null,"hostname":null,)"
              R"("working_dir":null,"py_interpreter_path":null,"prefix":"","suffix":""},"hidden":false},"success":false})");
    const auto e = nlohmann::json::parse(error_observation_json("bad"));
    EXPECT_EQ(e["observation"], "error");
    EXPECT_EQ(e["extras"]["error_id"], "");
}

// The writer's text is nlohmann's dump of the whole observation, byte for byte, whatever its values hold:
// JSON's own punctuation and the cut word "null", escapes, invalid UTF-8, nulls, large texts, with and
// without extras.stderr, one writer across all of them.
TEST(Messages, WriterMatchesADumpOfTheWholeDocument) {
    const auto whole = actionhost::bash::testing::whole_observation;
    const std::vector<std::string> texts = {"", "null", "\"null\"", "a\"b\\c", "{\"x\":null}", "\x1f\x01\n\t\r",
                                            "caf\xc3\xa9 \xe2\x82\xac", "bad \xff\xfe utf8 \xc3", std::string(70000, 'n'),
                                            std::string(3, '\0') + "z", "},\"success\":true}"};
    RunObservationWriter writer;
    size_t compared = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
        for (size_t j = 0; j < texts.size(); ++j) {
            RunMetadata m;
            m.exit_code = static_cast<int>(i) - 3;
            m.pid = static_cast<int>(j * 1000);
            if (i % 3 != 0) m.username = texts[j];
            if (j % 2 == 0) m.hostname = texts[i];
            if ((i + j) % 4 != 1) m.working_dir = texts[(i + j) % texts.size()];
            if (i % 5 != 2) m.py_interpreter_path = texts[(i * 7 + j) % texts.size()];
            m.prefix = texts[(i + 3) % texts.size()];
            m.suffix = texts[(j + 5) % texts.size()];
            if ((i + j) % 3 == 0) m.stderr_text = texts[(i * j) % texts.size()];
            const bool hidden = (i + j) % 2 == 1;
            ASSERT_EQ(writer.write(texts[i], texts[j], m, hidden), whole(texts[i], texts[j], m, hidden)) << i << " " << j;
            ++compared;
        }
    }
    EXPECT_EQ(compared, texts.size() * texts.size());
}

TEST(Messages, SpecialKeys) {
    EXPECT_TRUE(is_special_key("C-c"));
    EXPECT_TRUE(is_special_key(" C-d "));
    EXPECT_FALSE(is_special_key("C-cc"));
    EXPECT_FALSE(is_special_key("ls"));
    EXPECT_EQ(special_key_bytes("C-c"), "\x03");
    EXPECT_EQ(special_key_bytes("C-d"), "\x04");
    EXPECT_EQ(special_key_bytes("C-z"), "\x1a");
    EXPECT_EQ(special_key_bytes("C-["), "\x1b");
}

TEST(RunRequestParsing, DefaultsFlagsAndErrors) {
    auto rq = parse_run_request(R"({"action":"run","args":{"command":"ls","is_input":"true","blocking":true},"timeout":2.5})");
    ASSERT_TRUE(rq) << rq.error().message;
    EXPECT_EQ(rq.value().command, "ls");
    EXPECT_TRUE(rq.value().is_input);
    EXPECT_TRUE(rq.value().blocking);
    EXPECT_FALSE(rq.value().hidden);
    ASSERT_TRUE(rq.value().timeout);
    EXPECT_DOUBLE_EQ(*rq.value().timeout, 2.5);
    EXPECT_FALSE(parse_run_request(R"({"action":"run","args":{}})"));
    EXPECT_FALSE(parse_run_request(R"({"action":"run","args":{"command":1}})"));
    EXPECT_FALSE(parse_run_request("not json"));
    EXPECT_FALSE(parse_run_request(R"({"action":"run","args":{"command":"x","is_input":[1]}})"));
    auto no_timeout = parse_run_request(R"({"action":"run","args":{"command":"x","cwd":null}})");
    ASSERT_TRUE(no_timeout);
    EXPECT_FALSE(no_timeout.value().timeout);
    EXPECT_FALSE(no_timeout.value().cwd);
}

// Read from simdjson's document: the rules a full parse gave, down to duplicate keys and number forms.
TEST(RunRequestParsing, EveryFormTheHostMayWrite) {
    auto rq = parse_run_request(R"({"action":"run","args":{"command":"a","command":"b","is_input":1,"hidden":"True",)"
                                R"("blocking":0,"is_static":"False","separate_stderr":false,"cwd":"/w","thought":[[[[]]]]},"timeout":7})");
    ASSERT_TRUE(rq) << rq.error().message;
    EXPECT_EQ(rq.value().command, "b");  // the last of duplicate keys
    EXPECT_TRUE(rq.value().is_input);
    EXPECT_TRUE(rq.value().hidden);
    EXPECT_FALSE(rq.value().blocking);
    EXPECT_FALSE(rq.value().is_static);
    EXPECT_EQ(rq.value().cwd, "/w");
    EXPECT_DOUBLE_EQ(rq.value().timeout.value_or(0), 7.0);
    for (const char *t : {"-1", "0", "0.0", "null"})
        EXPECT_FALSE(parse_run_request(std::string(R"({"args":{"command":"x"},"timeout":)") + t + "}").value().timeout) << t;
    EXPECT_DOUBLE_EQ(parse_run_request(R"({"args":{"command":"x"},"timeout":18446744073709551615})").value().timeout.value_or(0),
                     18446744073709551615.0);
    EXPECT_EQ(parse_run_request(R"({"args":{"command":"x"},"timeout":"5"})").error().message,
              "Invalid run action: `timeout` must be a number");
    EXPECT_EQ(parse_run_request(R"({"args":{"command":"x","blocking":"yes"}})").error().message,
              "Invalid value for `blocking`: expected a boolean");
    EXPECT_EQ(parse_run_request("{\"args\":{\"command\":\"x\\u0000y\"}}").error().message,
              "Invalid run action: `command` contains a NUL byte, which a shell command cannot hold");
    EXPECT_EQ(parse_run_request(R"({"args":{"command":"x"},"args":[]})").error().message,
              "Invalid run action: `args` must be an object");
    EXPECT_EQ(parse_run_request("[]").error().message, "Invalid action JSON: not an object");
    // Nesting as deep as the host lets through is read; the texts of broken JSON are nlohmann's.
    const std::string deep = std::string(250, '[') + std::string(250, ']');
    EXPECT_TRUE(parse_run_request(R"({"args":{"command":"x","thought":)" + deep + "}}"));
    EXPECT_NE(parse_run_request("not json").error().message.find("Invalid action JSON: [json.exception.parse_error.101]"),
              std::string::npos);
}
