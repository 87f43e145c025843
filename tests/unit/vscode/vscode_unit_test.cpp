#include <gtest/gtest.h>

#include <map>

#include "launch_plan.hpp"
#include "ports.hpp"
#include "token_proxy.hpp"

using namespace actionhost::vscode;

namespace {
const std::string kTok = "0b6e3c1e-6a47-4c7e-9d43-2f1c0f6f9a10";

ConfigLookup config_of(std::map<std::string, std::string> m) {
    return [m](const char *key) -> std::optional<std::string> {
        auto it = m.find(key);
        if (it == m.end()) return std::nullopt;
        return it->second;
    };
}
}  // namespace

TEST(VscodeProxyAuth, QueryTokenRedirectsWithoutIt) {
    auto r = authorize(kTok, "/?tkn=" + kTok + "&folder=/workspace", "", true);
    EXPECT_EQ(r.decision, AuthDecision::RedirectSettingCookie);
    EXPECT_EQ(r.location, "/?folder=/workspace");
    r = authorize(kTok, "/some/path?tkn=" + kTok, "", true);
    EXPECT_EQ(r.decision, AuthDecision::RedirectSettingCookie);
    EXPECT_EQ(r.location, "/some/path");
}

TEST(VscodeProxyAuth, QueryTokenOnAnUpgradeIsAllowedInPlace) {
    EXPECT_EQ(authorize(kTok, "/?tkn=" + kTok + "&reconnectionToken=x", "", false).decision, AuthDecision::Allow);
}

TEST(VscodeProxyAuth, CookieAllows) {
    EXPECT_EQ(authorize(kTok, "/stable/static/x.js", kTok, true).decision, AuthDecision::Allow);
}

TEST(VscodeProxyAuth, EverythingElseIsForbidden) {
    EXPECT_EQ(authorize(kTok, "/", "", true).decision, AuthDecision::Forbid);
    EXPECT_EQ(authorize(kTok, "/", "wrong", true).decision, AuthDecision::Forbid);
    EXPECT_EQ(authorize(kTok, "/", kTok.substr(0, 35), true).decision, AuthDecision::Forbid);
    EXPECT_EQ(authorize(kTok, "/?tkn=wrong", kTok, true).decision, AuthDecision::Forbid);
    EXPECT_EQ(authorize(kTok, "/?tkn=", "", true).decision, AuthDecision::Forbid);
    EXPECT_EQ(authorize("", "/?tkn=", "", true).decision, AuthDecision::Forbid) << "an empty token never matches";
    EXPECT_EQ(authorize(kTok, "/%zz?tkn=" + kTok, "", true).decision, AuthDecision::Forbid);
}

TEST(VscodePorts, Parse) {
    EXPECT_EQ(parse_port("40001"), 40001);
    EXPECT_EQ(parse_port("1"), 1);
    EXPECT_EQ(parse_port("65535"), 65535);
    for (const char *bad : {"", "0", "65536", "abc", "-1", "+80", " 80", "80 ", "4e4", "999999"}) {
        EXPECT_FALSE(parse_port(bad)) << bad;
    }
}

TEST(VscodeLaunch, OpenVSCodeServerCommandLineIsOpenHands) {
    ServerBinary bin{ServerKind::OpenVSCodeServer, "/openhands/.openvscode-server/bin/openvscode-server"};
    ServerArgs a{&bin, kTok, 41234, "/workspace", "", "/tmp/x"};
    std::vector<std::string> want = {bin.path, "--host", "0.0.0.0", "--connection-token", kTok, "--port", "41234",
                                     "--disable-workspace-trust"};
    EXPECT_EQ(server_argv(a), want);
    a.base_path = "/rt1/vscode";
    want.insert(want.end(), {"--server-base-path", "/rt1/vscode"});
    EXPECT_EQ(server_argv(a), want);
}

TEST(VscodeLaunch, CodeServerListensOnlyOnASocketInTheRunDirectory) {
    ServerBinary bin{ServerKind::CodeServer, "/opt/cs/bin/code-server"};
    ServerArgs a{&bin, kTok, 41234, "/workspace", "", "/tmp/x"};
    auto argv = server_argv(a);
    auto has = [&](const std::string &x, const std::string &next) {
        for (size_t i = 0; i + 1 < argv.size(); ++i)
            if (argv[i] == x && argv[i + 1] == next) return true;
        return false;
    };
    EXPECT_TRUE(has("--socket", "/tmp/x/code-server.sock"));
    EXPECT_TRUE(has("--socket-mode", "600"));
    EXPECT_TRUE(has("--session-socket", "/tmp/x/session.sock"));
    EXPECT_TRUE(has("--config", "/tmp/x/code-server.yaml"));
    EXPECT_TRUE(has("--auth", "none"));
    EXPECT_EQ(std::find(argv.begin(), argv.end(), "--bind-addr"), argv.end()) << "no TCP port of its own";
    EXPECT_NE(std::find(argv.begin(), argv.end(), "--disable-workspace-trust"), argv.end());
    EXPECT_EQ(argv.back(), "/workspace");
    for (const auto &s : argv) EXPECT_EQ(s.find(kTok), std::string::npos) << "the token never reaches code-server";
}

TEST(VscodeLaunch, BasePath) {
    EXPECT_EQ(server_base_path(config_of({})), "");
    EXPECT_EQ(server_base_path(config_of({{"OPENVSCODE_SERVER_BASE_PATH", "x/y/"}})), "/x/y");
    EXPECT_EQ(server_base_path(config_of({{"RUNTIME_URL", "https://h.example/rt1/"}, {"RUNTIME_ID", "rt1"}})), "/rt1/vscode");
    EXPECT_EQ(server_base_path(config_of({{"RUNTIME_URL", "https://rt1.example/"}, {"RUNTIME_ID", "rt1"}})), "");
}

TEST(VscodeLaunch, ConfiguredServerPathIsTheOnlyOneLookedAt) {
    std::vector<std::string> tried;
    auto found = find_server(config_of({{"ACTIONHOST_CODE_SERVER_PATH", "/nonexistent/cs"}, {"PATH", "/usr/bin"}}), tried);
    EXPECT_FALSE(found);
    ASSERT_EQ(tried.size(), 1u);
    EXPECT_EQ(tried[0], "/nonexistent/cs");
    tried.clear();
    found = find_server(config_of({{"ACTIONHOST_CODE_SERVER_PATH", "/bin/true"}}), tried);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->kind, ServerKind::CodeServer);
}

TEST(VscodeLaunch, EnvironmentDropsSecretsAndSteering) {
    const char *host_env[] = {"PATH=/usr/bin", "SESSION_API_KEY=s3cret", "PORT=1", "PASSWORD=p", "VSCODE_PORT=4",
                              "VSCODE_IPC_HOOK_CLI=/x", "HOME=/root", "XDG_DATA_HOME=/d", nullptr};
    auto env = server_env(const_cast<char **>(host_env), false, "root", "/root");
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin", "HOME=/root", "XDG_DATA_HOME=/d"}));
    env = server_env(const_cast<char **>(host_env), true, "openhands", "/home/openhands");
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin", "HOME=/home/openhands", "USER=openhands", "LOGNAME=openhands"}));
}

// code-server's (and VS Code's) IPC sockets go to the private run directory, not the host's runtime dir.
TEST(VscodeLaunch, EnvironmentPointsTheRuntimeDirectoryIntoTheRunDirectory) {
    const char *host_env[] = {"PATH=/usr/bin", "XDG_RUNTIME_DIR=/run/user/0", "HOME=/root", nullptr};
    auto env = server_env(const_cast<char **>(host_env), false, "root", "/root", "/tmp/x/runtime");
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin", "HOME=/root", "XDG_RUNTIME_DIR=/tmp/x/runtime"}));
    env = server_env(const_cast<char **>(host_env), true, "openhands", "/home/openhands", "/tmp/x/runtime");
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin", "HOME=/home/openhands", "USER=openhands",
                                             "LOGNAME=openhands", "XDG_RUNTIME_DIR=/tmp/x/runtime"}));
    EXPECT_EQ(code_server_paths("/tmp/x").runtime_dir, "/tmp/x/runtime");
}
