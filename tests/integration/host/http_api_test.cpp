// The host's HTTP API against the real binary: OpenHands' status codes and bodies (docs/api.md), bad
// input.
#include <gtest/gtest.h>

#include <actionhost/abi.h>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
using nlohmann::json;

TEST(HostHttp, AliveAndServerInfo) {
    HostProcess host;
    auto alive = host.get("/alive");
    EXPECT_EQ(alive.status, 200);
    EXPECT_EQ(alive.json(), json({{"status", "ok"}}));
    auto info = host.get("/server_info").json();
    EXPECT_GE(info["uptime"].get<double>(), 0.0);
    EXPECT_GE(info["idle_time"].get<double>(), 0.0);
    for (const char *k : {"rss", "vms", "percent"}) EXPECT_TRUE(info["resources"]["memory"].contains(k)) << info.dump();
    for (const char *k : {"total", "used", "free", "percent"}) EXPECT_TRUE(info["resources"]["disk"].contains(k));
    for (const char *k : {"read_bytes", "write_bytes"}) EXPECT_TRUE(info["resources"]["io"].contains(k));
    EXPECT_GT(info["resources"]["memory"]["rss"].get<long long>(), 0);
}

TEST(HostHttp, UnknownPathsAndMethods) {
    HostProcess host;
    auto r = host.get("/no/such/path");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.json(), json({{"detail", "Not Found"}}));
    auto m = host.get("/execute_action");
    EXPECT_EQ(m.status, 405);
    EXPECT_EQ(m.json(), json({{"detail", "Method Not Allowed"}}));
    EXPECT_EQ(host.get("/vscode/connection_token").json(), json({{"token", nullptr}}));
}

TEST(HostHttp, SessionApiKeyGuardsEverythingButAliveAndServerInfo) {
    HostProcess host(HostOptions{.api_key = "k3y"});
    Http anon("127.0.0.1", host.port());
    EXPECT_EQ(anon.get("/alive").status, 200);
    EXPECT_EQ(anon.get("/server_info").status, 200);
    for (auto r : {anon.post_json("/execute_action", R"({"action":{"action":"read","args":{"path":"/etc/hostname"}}})"),
                   anon.post_json("/list_files", "{}"), anon.get("/download_files?path=/tmp"),
                   anon.get("/vscode/connection_token"),
                   anon.post_json("/execute_action", "{}", {{"X-Session-API-Key", "wrong"}})}) {
        EXPECT_EQ(r.status, 403);
        EXPECT_EQ(r.json(), json({{"detail", "Invalid API Key"}}));
    }
    EXPECT_EQ(host.post_json("/list_files", "{}").status, 200);  // HostProcess sends the key
}

TEST(HostHttp, BadRequestBodiesGetClearErrors) {
    HostProcess host(HostOptions{.args = {"--set", "ACTIONHOST_MAX_BODY_BYTES=4096"}});
    auto malformed = host.post_json("/execute_action", "{not json");
    EXPECT_EQ(malformed.status, 422);
    EXPECT_EQ(malformed.json()["detail"], "Invalid request parameters");
    EXPECT_EQ(host.post_json("/execute_action", R"({"action":"run"})").status, 422);
    EXPECT_EQ(host.post_json("/execute_action", R"([1,2])").status, 422);
    EXPECT_EQ(host.post_json("/execute_action", "{\"action\":{\"action\":\"read\",\"args\":{\"path\":\"\xff\"}}}").status, 422);
    std::string nested = "{\"action\":{\"action\":\"run\",\"args\":{\"command\":" + std::string(300, '[') +
                         std::string(300, ']') + "}}}";
    auto n = host.post_json("/execute_action", nested);
    EXPECT_EQ(n.status, 422);
    EXPECT_NE(n.json()["errors"].get<std::string>().find("nested deeper"), std::string::npos);
    auto big = host.post_json("/execute_action", std::string(10000, ' '));
    EXPECT_EQ(big.status, 413);
    EXPECT_NE(big.json()["detail"].get<std::string>().find("ACTIONHOST_MAX_BODY_BYTES"), std::string::npos);
    auto unknown = host.post_json("/execute_action", R"({"action":{"action":"explode","args":{}}})");
    EXPECT_EQ(unknown.status, 500);
    EXPECT_EQ(unknown.json()["detail"], "Internal server error: 'explode' is not a valid action type");
    auto badarg = host.post_json("/execute_action", R"({"action":{"action":"read","args":{"path":"/x","nope":1}}})");
    EXPECT_EQ(badarg.status, 500);
    EXPECT_EQ(badarg.json()["detail"], "Internal server error: unknown argument 'nope' for action 'read'");
    auto client_only = host.post_json("/execute_action", R"({"action":{"action":"think","args":{}}})");
    EXPECT_EQ(client_only.status, 500);
    auto bad_session = host.post_json("/execute_action", R"({"action":{"action":"read","args":{"path":"/x"}},"session":"../x"})");
    EXPECT_EQ(bad_session.status, 422);
    // Still serving after all of that.
    EXPECT_EQ(host.get("/alive").status, 200);
}

TEST(HostHttp, ReadAndWriteActionsOverHttp) {
    HostProcess host;
    auto w = host.execute({{"action", "write"}, {"args", {{"path", "hello.sh"}, {"content", "echo hi"}}}});
    EXPECT_EQ(w, json({{"message", "I wrote to the file " + host.working_dir() + "/hello.sh."},
                       {"observation", "write"},
                       {"content", ""},
                       {"extras", {{"path", host.working_dir() + "/hello.sh"}}}}));
    auto r = host.execute({{"action", "read"}, {"args", {{"path", "hello.sh"}}}});
    EXPECT_EQ(r["content"], "echo hi\n");
    EXPECT_EQ(r["observation"], "read");
    auto missing = host.execute({{"action", "read"}, {"args", {{"path", "nope.txt"}}}});
    EXPECT_EQ(missing["observation"], "error");
    EXPECT_EQ(missing["content"], "File not found: " + host.working_dir() + "/nope.txt. Your current working directory is " +
                                      host.working_dir() + ".");
    EXPECT_EQ(missing["extras"]["error_id"], "");
}

TEST(HostHttp, BrowserDisabledGivesTheExactError) {
    HostProcess host(HostOptions{.args = {"--no-enable-browser"}});
    auto obs = host.execute({{"action", "browse"}, {"args", {{"url", "http://127.0.0.1:1/"}}}});
    EXPECT_EQ(obs["observation"], "error");
    EXPECT_EQ(obs["content"], "Browser functionality is not supported or disabled.");
}

TEST(HostCli, VersionHelpAndUnknownPlugin) {
    auto v = run_process({build_path("bin/actionhost"), "--version"}, 10);
    EXPECT_EQ(v.exit_code, 0);
    EXPECT_NE(v.output.find("actionhost 0.1.0 (C ABI " + std::to_string(AH_ABI_VERSION_MAJOR) + "." + std::to_string(AH_ABI_VERSION_MINOR) +
                            "." + std::to_string(AH_ABI_VERSION_PATCH) + ")"), std::string::npos) << v.output;
    auto h = run_process({build_path("bin/actionhost"), "--help"}, 10);
    EXPECT_EQ(h.exit_code, 0);
    EXPECT_NE(h.output.find("usage: actionhost PORT"), std::string::npos);
    auto bad = run_process({build_path("bin/actionhost"), "0", "--plugins", "nonexistent"}, 10);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.output.find("unknown plugin 'nonexistent'; known plugins:"), std::string::npos) << bad.output;
    auto noport = run_process({build_path("bin/actionhost")}, 10);
    EXPECT_EQ(noport.exit_code, 2);
    EXPECT_NE(noport.output.find("PORT is required"), std::string::npos);
}

// A second host asked for a port in use must fail, not share it (no SO_REUSEPORT): clients of the
// first host would otherwise be answered by either.
TEST(HostHttp, SecondHostOnATakenPortFailsInsteadOfSharingIt) {
    HostProcess first;
    TempDir wd("ahport");
    ProcessResult second = run_process({build_path("bin/actionhost"), std::to_string(first.port()), "--host", "127.0.0.1",
                                        "--working-dir", wd.path()},
                                       30.0, {"HOME=" + wd.path()});
    EXPECT_FALSE(second.timed_out) << "the second host kept running on a taken port";
    EXPECT_NE(second.exit_code, 0) << second.output;
    EXPECT_EQ(first.get("/alive").status, 200);
}
