// Every case in which OpenHands answers {"token":null}, through the real host with
// --plugins vscode, each with the log line that says why; and settings.json as OpenHands writes it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/host_process.hpp"
#include "support/temp_dir.hpp"
#include "vscode_test_util.hpp"

using namespace actionhost::testing;
namespace vs = actionhost::testing::vscode;

namespace {

// A host with the vscode plugin; `env` on top of the test's environment. No server path is left to
// chance: ACTIONHOST_CODE_SERVER_PATH points at one that does not exist unless the test says otherwise.
HostOptions vscode_host(std::map<std::string, std::string> env, std::vector<std::string> extra_args = {}) {
    HostOptions o;
    o.args = {"--plugins", "vscode"};
    o.args.insert(o.args.end(), extra_args.begin(), extra_args.end());
    if (!env.count("ACTIONHOST_CODE_SERVER_PATH")) env["ACTIONHOST_CODE_SERVER_PATH"] = "/nonexistent/code-server";
    o.env = std::move(env);
    return o;
}

void expect_null_token(HostProcess &host, const std::string &log_fragment) {
    auto r = host.get("/vscode/connection_token");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.body, R"({"token":null})");
    // The reason is logged at start (the plugin decides at init).
    std::string log;
    for (int i = 0; i < 50; ++i) {
        log = host.log();
        if (log.find(log_fragment) != std::string::npos) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_NE(log.find("connection token is null"), std::string::npos) << log;
    EXPECT_NE(log.find(log_fragment), std::string::npos) << log;
}

}  // namespace

TEST(VscodeNullToken, WithoutThePluginTheHostAnswersNull) {
    HostProcess host;
    auto r = host.get("/vscode/connection_token");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"token":null})");
}

TEST(VscodeNullToken, InvalidPort) {
    for (const char *bad : {"abc", "70000", "0", "-5", "4000x"}) {
        SCOPED_TRACE(bad);
        HostProcess host(vscode_host({{"VSCODE_PORT", bad}}));
        expect_null_token(host, std::string("VSCODE_PORT '") + bad + "' is not a valid port");
    }
}

TEST(VscodeNullToken, PortBusy) {
    vs::PortHolder busy;
    HostProcess host(vscode_host({{"VSCODE_PORT", std::to_string(busy.port())}}));
    expect_null_token(host, "port " + std::to_string(busy.port()) + " (VSCODE_PORT) is not available");
}

TEST(VscodeNullToken, ServerMissing) {
    HostProcess host(vscode_host({{"VSCODE_PORT", std::to_string(vs::free_port())}}));
    expect_null_token(host, "no VS Code server is installed (looked for: /nonexistent/code-server");
}

TEST(VscodeNullToken, UserNotAllowed) {
    // Neither root, nor openhands, nor $RUNTIME_USERNAME, nor the host's own user.
    HostOptions o = vscode_host({{"VSCODE_PORT", std::to_string(vs::free_port())}, {"RUNTIME_USERNAME", "somebody-else"}},
                                {"--username", "nobody", "--user-id", "65534"});
    o.as_current_user = false;
    if (geteuid() != 0) GTEST_SKIP() << "needs a root host to name another user";
    // A workspace the other user can enter (the host's bash starts there as that user).
    TempDir dir("ahvscode");
    ::chmod(dir.path().c_str(), 0755);
    o.working_dir = dir.path() + "/workspace";
    std::filesystem::create_directories(o.working_dir);
    ::chmod(o.working_dir.c_str(), 0777);
    HostProcess host(o);
    expect_null_token(host, "user 'nobody' is not allowed to run VS Code");
}

TEST(VscodeNullToken, ConnectionInfoSaysWhy) {
    HostProcess host(vscode_host({{"VSCODE_PORT", "not-a-port"}}));
    auto r = host.get("/vscode/connection_info");
    ASSERT_EQ(r.status, 200) << r.body;
    auto j = r.json();
    EXPECT_TRUE(j["token"].is_null());
    EXPECT_TRUE(j["port"].is_null());
    EXPECT_EQ(j["reason"], "VSCODE_PORT 'not-a-port' is not a valid port");
}

TEST(VscodeNullToken, OnlyGetIsAnswered) {
    HostProcess host(vscode_host({{"VSCODE_PORT", "not-a-port"}}));
    auto r = host.post_json("/vscode/connection_token", "{}");
    EXPECT_EQ(r.status, 405) << r.body;
}

TEST(VscodeSettings, WrittenAsOpenHandsDoesEvenWhenTheTokenIsNull) {
    HostProcess host(vscode_host({{"VSCODE_PORT", "not-a-port"}}));
    const std::string file = host.working_dir() + "/.vscode/settings.json";
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 07777, 0666u);
    EXPECT_EQ(read_file(file), read_file(source_path("plugins/vscode/settings.json")));
    auto j = nlohmann::json::parse(read_file(file));
    EXPECT_EQ(j["workbench.startupEditor"], "none");
    EXPECT_EQ(j["workbench.colorTheme"], "Default Dark Modern");
}

TEST(VscodeNullToken, TheTokenIsNoActionProvider) {
    HostProcess host(vscode_host({{"VSCODE_PORT", "not-a-port"}}));
    // The host keeps serving actions with the plugin loaded and disabled.
    auto obs = host.run("echo still-here");
    EXPECT_NE(obs["content"].get<std::string>().find("still-here"), std::string::npos) << obs.dump();
}
