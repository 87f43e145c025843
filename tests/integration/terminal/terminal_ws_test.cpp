// GET /terminal against the real host: a real bash on a real PTY behind a WebSocket. The key is
// required, input reaches bash, resize is seen by `stty size`, ^C interrupts the foreground command,
// a detached terminal keeps its shell's state for the next attach, and the bounds hold.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/host_process.hpp"
#include "support/temp_dir.hpp"
#include "terminal_client.hpp"

using actionhost::testing::HostOptions;
using actionhost::testing::HostProcess;
using actionhost::testing::TerminalClient;

namespace {

const std::string kKey = "terminal-test-key";

HostOptions options(std::map<std::string, std::string> env = {}) {
    HostOptions o;
    o.api_key = kKey;
    o.env = std::move(env);
    return o;
}

}  // namespace

TEST(TerminalEndpoint, RefusesAWrongOrMissingKeyBeforeAnyShellStarts) {
    HostProcess host(options());
    TerminalClient none(host.port(), "/terminal?name=t", "");
    EXPECT_EQ(none.status, 403) << none.refusal;
    EXPECT_NE(none.refusal.find("Invalid API Key"), std::string::npos) << none.refusal;
    TerminalClient wrong(host.port(), "/terminal?name=t", "not-the-key");
    EXPECT_EQ(wrong.status, 403) << wrong.refusal;
    // Nothing was started for them: attaching to "t" with the key finds no terminal.
    TerminalClient attach(host.port(), "/terminal?name=t&mode=attach", kKey);
    EXPECT_EQ(attach.status, 404) << attach.refusal;
    // A plain GET (no upgrade) is told what the path is.
    EXPECT_EQ(host.get("/terminal?name=t").status, 426);
}

TEST(TerminalEndpoint, EchoResizeAndCtrlCReachTheRealShell) {
    HostProcess host(options());
    TerminalClient t(host.port(), "/terminal?name=work&rows=30&cols=100", kKey);
    ASSERT_EQ(t.status, 101) << t.refusal;
    ASSERT_TRUE(t.wait_for("attached"));
    EXPECT_TRUE(t.controls.front().value("created", false));
    t.type("echo hel''lo-$((6*7))\r");
    ASSERT_TRUE(t.wait_for("hello-42")) << t.output;
    t.type("stty size\r");
    ASSERT_TRUE(t.wait_for("30 100")) << t.output;
    t.control({{"type", "resize"}, {"rows", 40}, {"cols", 132}});
    t.type("stty size\r");
    ASSERT_TRUE(t.wait_for("40 132")) << t.output;
    // ^C as a byte: the terminal's line discipline sends SIGINT to the foreground process group.
    const auto start = std::chrono::steady_clock::now();
    t.type("sleep 100; echo status=$?\r");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    t.type("\x03");
    t.type("echo after-$?\r");
    ASSERT_TRUE(t.wait_for("after-130")) << t.output;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    t.type("exit 7\r");
    ASSERT_TRUE(t.wait_closed()) << t.output;
    EXPECT_EQ(t.control_of("exit").value("code", -1), 7) << t.output;
}

TEST(TerminalEndpoint, DetachLeavesTheShellRunningAndAttachFindsItsState) {
    HostProcess host(options());
    {
        TerminalClient t(host.port(), "/terminal?name=keep&mode=create", kKey);
        ASSERT_EQ(t.status, 101) << t.refusal;
        t.type("cd /tmp && MARK=kept-$((40+2)) && echo set\r");
        ASSERT_TRUE(t.wait_for("set")) << t.output;
        t.control({{"type", "detach"}});
        ASSERT_TRUE(t.wait_for("detached")) << t.output;
        EXPECT_TRUE(t.wait_closed());
    }
    // create refuses a name in use; attach joins it, with the scrollback first.
    TerminalClient again(host.port(), "/terminal?name=keep&mode=create", kKey);
    EXPECT_EQ(again.status, 409) << again.refusal;
    TerminalClient t(host.port(), "/terminal?name=keep&mode=attach", kKey);
    ASSERT_EQ(t.status, 101) << t.refusal;
    ASSERT_TRUE(t.wait_for("set")) << "no scrollback: " << t.output;
    t.type("echo $MARK in $PWD\r");
    ASSERT_TRUE(t.wait_for("kept-42 in /tmp")) << t.output;
    // The web view lists it.
    auto list = host.get("/ui/terminals").json();
    ASSERT_EQ(list.size(), 1u) << list;
    EXPECT_EQ(list[0]["name"], "keep");
    EXPECT_EQ(list[0]["clients"], 1);
}

TEST(TerminalEndpoint, BoundsHold) {
    HostProcess host(options({{"ACTIONHOST_MAX_TERMINALS", "2"}}));
    TerminalClient a(host.port(), "/terminal?name=a", kKey), b(host.port(), "/terminal?name=b", kKey);
    ASSERT_EQ(a.status, 101);
    ASSERT_EQ(b.status, 101);
    TerminalClient c(host.port(), "/terminal?name=c", kKey);
    EXPECT_EQ(c.status, 429) << c.refusal;
    // Names and sizes are checked before anything starts.
    EXPECT_EQ(TerminalClient(host.port(), "/terminal?name=..%2Fx%20y", kKey).status, 422);
    EXPECT_EQ(TerminalClient(host.port(), "/terminal?name=" + std::string(65, 'n'), kKey).status, 422);
    EXPECT_EQ(TerminalClient(host.port(), "/terminal?name=a&rows=0", kKey).status, 422);
    EXPECT_EQ(TerminalClient(host.port(), "/terminal?name=a&cols=5000", kKey).status, 422);
    // A message over the limit (64 KiB) ends that client's connection; the terminal and others go on.
    ASSERT_TRUE(a.wait_for("attached"));
    a.type(std::string(70 * 1024, 'x'));
    EXPECT_TRUE(a.wait_closed());
    ASSERT_TRUE(b.wait_for("attached"));
    b.type("echo still-$((1+1))\r");
    EXPECT_TRUE(b.wait_for("still-2")) << b.output;
    // A bad control message is answered, not fatal.
    b.control({{"type", "resize"}, {"rows", 0}, {"cols", 10}});
    EXPECT_TRUE(b.wait_for("error"));
}

TEST(TerminalEndpoint, ADetachedTerminalIdleTooLongIsEnded) {
    HostProcess host(options({{"ACTIONHOST_TERMINAL_DETACHED_TIMEOUT", "1"}}));
    {
        TerminalClient t(host.port(), "/terminal?name=idle", kKey);
        ASSERT_EQ(t.status, 101);
        ASSERT_TRUE(t.wait_for("attached"));
    }
    // The reaper looks every second: gone within a few.
    bool gone = false;
    for (int i = 0; i < 50 && !gone; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        gone = host.get("/ui/terminals").json().empty();
    }
    EXPECT_TRUE(gone);
}

// The web view's cookie: given for the key POSTed to /ui/login (never for a wrong one), good for /ui
// only (never for /execute_action), and on the terminal WebSocket only from the host's own origin.
TEST(WebViewAccess, TheCookieOpensTheViewOnlyAndOnlyFromItsOwnOrigin) {
    HostProcess host(options());
    actionhost::testing::Http http("127.0.0.1", host.port());
    EXPECT_NE(http.get("/ui").body.find("name=\"key\""), std::string::npos);  // the login form
    EXPECT_EQ(http.get("/ui/terminals").status, 403);
    auto wrong = http.request("POST", "/ui/login", "key=nope", "application/x-www-form-urlencoded");
    EXPECT_EQ(wrong.status, 403);
    EXPECT_EQ(wrong.headers.count("set-cookie"), 0u);
    auto ok = http.request("POST", "/ui/login", "key=" + kKey, "application/x-www-form-urlencoded");
    ASSERT_EQ(ok.status, 303);
    const std::string set = ok.headers["set-cookie"];
    for (const char *flag : {"HttpOnly", "SameSite=Strict", "Path=/ui"}) EXPECT_NE(set.find(flag), std::string::npos) << set;
    EXPECT_EQ(set.find(kKey), std::string::npos) << "the cookie must not be the key";
    const std::string cookie = set.substr(0, set.find(';'));
    EXPECT_EQ(http.get("/ui/terminals", {{"Cookie", cookie}}).status, 200);
    EXPECT_EQ(http.get("/ui/terminals", {{"Cookie", "ah_view=" + std::string(64, '0')}}).status, 403);
    // Outside /ui the cookie is nothing.
    auto action = http.post_json("/execute_action", R"({"action":{"action":"run","args":{"command":"true"}}})", {{"Cookie", cookie}});
    EXPECT_EQ(action.status, 403);
    const std::string self = "http://127.0.0.1:" + std::to_string(host.port());
    TerminalClient foreign(host.port(), "/ui/terminal?name=v", "", "http://127.0.0.1:9", cookie);
    EXPECT_EQ(foreign.status, 403) << foreign.refusal;
    TerminalClient own(host.port(), "/ui/terminal?name=v", "", self, cookie);
    ASSERT_EQ(own.status, 101) << own.refusal;
    own.type("echo via-$((2+3))\r");
    EXPECT_TRUE(own.wait_for("via-5")) << own.output;
    // The file tree and a download.
    actionhost::testing::write_file(host.working_dir() + "/seen.txt", "content");
    auto files = http.get("/ui/files", {{"Cookie", cookie}});
    EXPECT_NE(files.body.find("seen.txt"), std::string::npos) << files.body;
    auto file = http.get("/ui/download?path=seen.txt", {{"Cookie", cookie}});
    EXPECT_EQ(file.status, 200);
    EXPECT_EQ(file.body, "content");
}

// The image beside the terminal is the newest PNG of a directory a plugin's manifest declares (the
// browser plugin: .browser_screenshots), titled as declared; nothing of an undeclared directory, no
// link the sandbox planted, and 204 while there is none.
TEST(WebViewImages, TheNewestImageOfADeclaredDirectoryIsShownAndNothingElse) {
    namespace fs = std::filesystem;
    HostProcess host(options());
    actionhost::testing::Http http("127.0.0.1", host.port());
    const actionhost::testing::Headers key{{"X-Session-API-Key", kKey}};
    EXPECT_EQ(http.get("/ui/screenshot", key).status, 204);
    const fs::path shots = fs::path(host.working_dir()) / ".browser_screenshots";
    fs::create_directories(shots);
    const auto now = fs::file_time_type::clock::now();
    actionhost::testing::write_file(shots / "older.png", "older");
    fs::last_write_time(shots / "older.png", now - std::chrono::minutes(2));
    actionhost::testing::write_file(shots / "newer.png", "newer");
    fs::last_write_time(shots / "newer.png", now - std::chrono::minutes(1));
    // Newer, but not where any plugin said it saves images.
    fs::create_directories(fs::path(host.working_dir()) / ".elsewhere");
    actionhost::testing::write_file(fs::path(host.working_dir()) / ".elsewhere" / "x.png", "elsewhere");
    // Newest of all, but a link to a file outside: never followed.
    actionhost::testing::write_file(fs::path(host.working_dir()) / "secret.txt", "secret");
    fs::create_symlink(fs::path(host.working_dir()) / "secret.txt", shots / "link.png");
    auto shot = http.get("/ui/screenshot", key);
    ASSERT_EQ(shot.status, 200);
    EXPECT_EQ(shot.body, "newer");
    EXPECT_EQ(shot.headers["x-image-title"], "Browser");
    EXPECT_EQ(shot.headers["content-type"], "image/png");
    EXPECT_EQ(http.get("/ui/screenshot").status, 403);  // behind the key like the rest of /ui
}
