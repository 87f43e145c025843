// A real code-server started by the vscode plugin through the real host (--plugins vscode), guarded by
// the plugin's token proxy: HTTP without the token refused, with it answered; headless chromium opens
// the editor and the workbench renders; a dead server is restarted on the next token request; the
// host's shutdown stops the whole server tree.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "support/headless_chromium.hpp"
#include "support/host_process.hpp"
#include "support/http.hpp"
#include "support/socket_holders.hpp"
#include "support/temp_dir.hpp"
#include "vscode_test_util.hpp"

using namespace actionhost::testing;
namespace vs = actionhost::testing::vscode;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class VscodeServer : public ::testing::Test {
  protected:
    void SetUp() override {
        code_server_ = vs::installed_code_server();
        if (!code_server_) GTEST_SKIP() << "code-server is not installed (scripts/install-code-server installs it)";
        port_ = vs::free_port();
        data_ = std::make_unique<TempDir>("ahvscode");
        HostOptions o;
        o.args = {"--plugins", "vscode"};
        // Private code-server state per test: its user-data and config dirs follow XDG.
        o.env = {{"VSCODE_PORT", std::to_string(port_)},
                 {"ACTIONHOST_CODE_SERVER_PATH", *code_server_},
                 {"XDG_DATA_HOME", data_->path() + "/data"},
                 {"XDG_CONFIG_HOME", data_->path() + "/config"}};
        started_ = Clock::now();
        host_ = std::make_unique<HostProcess>(o);
    }

    std::string token() {
        auto r = host_->get("/vscode/connection_token");
        EXPECT_EQ(r.status, 200) << r.body;
        auto j = r.json();
        EXPECT_TRUE(j["token"].is_string()) << r.body << "\n" << host_->log();
        return j["token"].is_string() ? j["token"].get<std::string>() : "";
    }

    // GET on the public VS Code port with an optional cookie header.
    HttpResponse get(const std::string &path, const std::string &cookie = "") {
        Http http("127.0.0.1", port_, 60.0);
        Headers h;
        if (!cookie.empty()) h.push_back({"Cookie", cookie});
        return http.get(path, h);
    }

    void TearDown() override {
        if (!host_) return;
        // Whatever of the server outlives the host (a failing shutdown test) is killed here, not left behind.
        std::vector<pid_t> tree = vs::descendants(host_->pid());
        host_.reset();
        for (pid_t p : tree) {
            if (vs::running(p) && vs::cmdline(p).find("code-server") != std::string::npos) ::kill(p, SIGKILL);
        }
    }

    // Polls code-server's health endpoint through the proxy (bounded): a token request waits only a
    // few seconds for the server, which a loaded machine can exceed.
    bool wait_serving(const std::string &tok, double timeout_s = 90) {
        const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
        while (Clock::now() < deadline) {
            try {
                if (get("/healthz", "vscode-tkn=" + tok).status == 200) return true;
            } catch (const std::exception &) {
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        return false;
    }

    // The process the plugin started: the host's descendant running code-server's entry point.
    std::vector<pid_t> server_processes() { return vs::descendants_matching(host_->pid(), "code-server"); }

    std::optional<std::string> code_server_;
    int port_ = 0;
    std::unique_ptr<TempDir> data_;
    std::unique_ptr<HostProcess> host_;
    Clock::time_point started_;
};

}  // namespace

TEST_F(VscodeServer, TokenIsEnforcedOverHttp) {
    const std::string tok = token();
    ASSERT_TRUE(vs::looks_like_uuid4(tok)) << tok;
    EXPECT_EQ(token(), tok) << "the token is fixed for the server's life";
    ASSERT_TRUE(wait_serving(tok)) << host_->log();

    // No token, a wrong token, a wrong cookie: refused.
    auto r = get("/");
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(r.body, "Forbidden.");
    EXPECT_EQ(get("/?tkn=00000000-0000-4000-8000-000000000000").status, 403);
    EXPECT_EQ(get("/", "vscode-tkn=wrong").status, 403);
    EXPECT_EQ(get("/healthz").status, 403);

    // The token in the query: a cookie and a redirect to the same URL without it.
    const std::string folder = host_->working_dir();
    r = get("/?tkn=" + tok + "&folder=" + folder);
    ASSERT_EQ(r.status, 302) << r.body;
    EXPECT_EQ(r.headers["location"], "/?folder=" + folder);
    EXPECT_NE(r.headers["set-cookie"].find("vscode-tkn=" + tok), std::string::npos) << r.headers["set-cookie"];

    // With the cookie: code-server's workbench page and its resources.
    r = get("/?folder=" + folder, "vscode-tkn=" + tok);
    ASSERT_EQ(r.status, 200) << r.body.substr(0, 500);
    EXPECT_NE(r.body.find("vscode-workbench-web-configuration"), std::string::npos) << r.body.substr(0, 500);
    r = get("/healthz", "other=1; vscode-tkn=" + tok);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find("status"), std::string::npos) << r.body;
}

TEST_F(VscodeServer, ChromiumRendersTheWorkbench) {
    auto chromium = chromium_path();
    ASSERT_TRUE(chromium) << "chromium is not installed (Debian package chromium)";
    const std::string tok = token();
    ASSERT_FALSE(tok.empty());
    ASSERT_TRUE(wait_serving(tok)) << host_->log();
    const std::string base = "http://127.0.0.1:" + std::to_string(port_);
    const std::string url = base + "/?tkn=" + tok + "&folder=" + host_->working_dir();
    const std::string artefacts = AH_VSCODE_ARTEFACT_DIR;
    std::filesystem::create_directories(artefacts);
    const std::string workbench = "!!document.querySelector('.monaco-workbench')";

    // Without the token the browser gets the refusal, not the editor.
    {
        HeadlessChromium browser(*chromium, base + "/?folder=" + host_->working_dir());
        // Bounded wait for the navigation to land (the target starts on about:blank).
        EXPECT_TRUE(browser.wait_for("location.protocol === 'http:' && document.readyState === 'complete' && "
                                     "document.body !== null && document.body.innerText.length > 0", 60));
        EXPECT_EQ(browser.evaluate("document.body.innerText"), "Forbidden.");
        EXPECT_EQ(browser.evaluate(workbench), false);
    }

    // With it: the token redirect sets the cookie, the workbench renders (its scripts and WebSockets
    // pass the proxy on the cookie alone).
    HeadlessChromium browser(*chromium, url);
    const auto opened = Clock::now();
    ASSERT_TRUE(browser.wait_for(workbench, 90)) << browser.outer_html().substr(0, 2000) << "\n" << host_->log();
    const double host_to_workbench = seconds_since(started_);
    const double browser_to_workbench = seconds_since(opened);
    EXPECT_EQ(browser.evaluate("location.search.includes('tkn=')"), false) << "the token is not left in the URL";
    // The explorer shows the workspace folder once the remote connection (a proxied WebSocket) is up.
    const std::string folder_name = std::filesystem::path(host_->working_dir()).filename().string();
    const bool connected = browser.wait_for(
        "!!document.querySelector('.explorer-folders-view') || document.title.toLowerCase().includes('" + folder_name + "')", 60);
    EXPECT_TRUE(connected) << browser.evaluate("document.title").dump();
    std::ofstream(artefacts + "/workbench-dom.html") << browser.outer_html();
    const std::string shot = artefacts + "/workbench.png";
    browser.screenshot(shot);
    std::string png = read_file(shot);
    EXPECT_GT(png.size(), 10000u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    std::cout << "[vscode] host start -> workbench rendered: " << host_to_workbench << " s (browser open -> workbench: "
              << browser_to_workbench << " s); screenshot " << shot << "\n";
    RecordProperty("host_start_to_workbench_s", std::to_string(host_to_workbench));
}

TEST_F(VscodeServer, DeadServerIsRestartedOnTheNextTokenRequest) {
    const std::string tok = token();
    ASSERT_FALSE(tok.empty());
    ASSERT_TRUE(wait_serving(tok)) << host_->log();
    auto procs = server_processes();
    ASSERT_FALSE(procs.empty()) << host_->log();
    // Kill the whole server: its session leader first, then anything left of its tree.
    vs::kill_and_wait(procs);
    for (pid_t p : procs) ASSERT_FALSE(vs::running(p)) << p;
    EXPECT_NE(get("/healthz", "vscode-tkn=" + tok).status, 200) << "nothing serves while the server is dead";

    // The next token request restarts it: same token, same port, serving again.
    EXPECT_EQ(token(), tok);
    EXPECT_TRUE(wait_serving(tok)) << host_->log();
    EXPECT_NE(host_->log().find("restarting it"), std::string::npos) << host_->log();
    auto again = server_processes();
    ASSERT_FALSE(again.empty());
    for (pid_t p : again) EXPECT_TRUE(std::find(procs.begin(), procs.end(), p) == procs.end());
}

// code-server outlives nothing of the host's: had it inherited the host's listening sockets (Poco opens
// them without O_CLOEXEC), the API and VS Code ports would stay bound by node after the host is gone.
TEST_F(VscodeServer, TheServerInheritsNoneOfTheHostsListeningSockets) {
    const std::string tok = token();
    ASSERT_FALSE(tok.empty());
    ASSERT_TRUE(wait_serving(tok)) << host_->log();
    ASSERT_FALSE(server_processes().empty());
    const std::set<pid_t> only_host{host_->pid()};
    EXPECT_EQ(processes_holding_listener(host_->port()), only_host) << "the host's API port";
    EXPECT_EQ(processes_holding_listener(port_), only_host) << "the token proxy's port";
}

TEST_F(VscodeServer, HostShutdownStopsTheWholeServerTree) {
    const std::string tok = token();
    ASSERT_FALSE(tok.empty());
    ASSERT_TRUE(wait_serving(tok)) << host_->log();
    ASSERT_EQ(get("/?folder=" + host_->working_dir(), "vscode-tkn=" + tok).status, 200);
    auto leaders = server_processes();
    ASSERT_FALSE(leaders.empty());
    std::vector<pid_t> tree;
    for (pid_t l : leaders) {
        tree.push_back(l);
        for (pid_t d : vs::descendants(l)) tree.push_back(d);
    }
    const int status = host_->stop();
    EXPECT_FALSE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the host had to be killed: " << host_->log();
    EXPECT_NE(host_->log().find("vscode: server stopped"), std::string::npos) << host_->log();
    for (int i = 0; i < 100; ++i) {
        bool any = false;
        for (pid_t p : tree) any = any || vs::running(p);
        if (!any) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (pid_t p : tree) EXPECT_FALSE(vs::running(p)) << p << " " << vs::cmdline(p);
    // And the port is free again.
    Http http("127.0.0.1", port_, 5.0);
    EXPECT_THROW(http.get("/"), std::exception);
}
