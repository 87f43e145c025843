// POST /stdin's words: the query it reads and the answers it gives (stdin_route.hpp).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "stdin_route.hpp"

using namespace actionhost::bash;

TEST(StdinRoute, ReadsSessionAndEof) {
    auto q = parse_stdin_query("");
    ASSERT_TRUE(q);
    EXPECT_EQ(q.value().session, "");
    EXPECT_FALSE(q.value().eof);
    q = parse_stdin_query("session=build.1&eof=1");
    ASSERT_TRUE(q);
    EXPECT_EQ(q.value().session, "build.1");
    EXPECT_TRUE(q.value().eof);
    EXPECT_TRUE(parse_stdin_query("eof=true").value().eof);
    EXPECT_FALSE(parse_stdin_query("eof=0").value().eof);
    EXPECT_FALSE(parse_stdin_query("eof=false").value().eof);
    EXPECT_EQ(parse_stdin_query("eof=yes").error().message, "`eof` must be 1, 0, true or false, got: \"yes\"");
    EXPECT_EQ(parse_stdin_query("session=a%2Fb").error().message, "`session` may hold only A-Z, a-z, 0-9, '_', '.' and '-'");
    EXPECT_EQ(parse_stdin_query("session=" + std::string(65, 'a')).error().message, "`session` is longer than 64 characters");
}

TEST(StdinRoute, Answers) {
    StdinQuery q{"build", false};
    StdinFeed f;
    f.written = 5;
    StdinAnswer a = stdin_answer(q, f);
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(nlohmann::json::parse(a.body), (nlohmann::json{{"written", 5}, {"closed", false}}));
    f.no_command = true;
    a = stdin_answer(q, f);
    EXPECT_EQ(a.status, 409);
    EXPECT_EQ(nlohmann::json::parse(a.body).value("detail", ""),
              "No command of session \"build\" reads its stdin: run one with \"tty\": false and \"open_stdin\": true");
    StdinFeed broken;
    broken.error = "boom";
    a = stdin_answer(q, broken);
    EXPECT_EQ(a.status, 500);
    EXPECT_EQ(nlohmann::json::parse(a.body).value("detail", ""), "Cannot feed the stdin of session \"build\": boom");
}
