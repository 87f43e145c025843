// GET /metrics of the real binary read by real Prometheus tools: promtool's parser and linter accept the
// text, and a Prometheus server started here scrapes it with the key as a bearer token, as one would be
// configured in production; counts match exactly the actions sent.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/free_port.hpp"
#include "support/host_process.hpp"
#include "support/http.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

double sample(const std::string &text, const std::string &series) {
    const size_t at = text.find("\n" + series + " ");
    return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

bool have(const char *program) { return ::access(program, X_OK) == 0; }

// A process of this test, killed by its pid (never by name) when the object goes.
class Child {
  public:
    explicit Child(std::vector<std::string> argv, const std::string &log) {
        pid_ = ::fork();
        if (pid_ == 0) {
            FILE *f = std::fopen(log.c_str(), "w");
            if (f) ::dup2(fileno(f), 1), ::dup2(fileno(f), 2);
            std::vector<char *> args;
            for (auto &a : argv) args.push_back(a.data());
            args.push_back(nullptr);
            ::execv(args[0], args.data());
            ::_exit(127);
        }
    }
    ~Child() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGTERM);
        for (int i = 0; i < 100 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) std::this_thread::sleep_for(50ms);
        if (::waitpid(pid_, nullptr, WNOHANG) == 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }

  private:
    pid_t pid_ = -1;
};

}  // namespace

TEST(HostMetricsHttp, KeyRequiredAlsoAsBearerToken) {
    HostProcess host(HostOptions{.api_key = "k3y"});
    Http raw("127.0.0.1", host.port());
    EXPECT_EQ(raw.get("/metrics").status, 403);
    EXPECT_EQ(raw.get("/metrics", {{"Authorization", "Bearer wrong"}}).status, 403);
    EXPECT_EQ(raw.get("/metrics", {{"X-Session-API-Key", "wrong"}, {"Authorization", "Bearer k3y"}}).status, 403)
        << "X-Session-API-Key, when sent, is the key";
    EXPECT_EQ(raw.get("/logs").status, 403);
    auto ok = raw.get("/metrics", {{"Authorization", "Bearer k3y"}});
    EXPECT_EQ(ok.status, 200);
    EXPECT_EQ(ok.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    // Bearer is accepted on every keyed path, the action endpoint included.
    auto r = raw.post_json("/execute_action", R"({"action":{"action":"run","args":{"command":"echo hi"}}})", {{"Authorization", "Bearer k3y"}});
    EXPECT_EQ(r.status, 200) << r.body;
}

TEST(HostMetricsHttp, PromtoolAcceptsTheTextAndCountsAreExact) {
    if (!have("/usr/bin/promtool")) GTEST_SKIP() << "promtool is not installed (Debian's prometheus package; scripts/apt-packages.txt)";
    HostProcess host;
    for (int i = 0; i < 3; ++i) EXPECT_EQ(host.run("echo " + std::to_string(i))["extras"]["metadata"]["exit_code"], 0);
    EXPECT_EQ(host.execute_raw({{"action", "run"}, {"args", {{"command", 7}}}}).status, 500);  // refused
    EXPECT_EQ(host.execute({{"action", "read"}, {"args", {{"path", "/no/such/file"}}}})["observation"], "error");
    const std::string text = host.get("/metrics").body;
    EXPECT_EQ(sample(text, R"(actionhost_actions_total{action="run",outcome="ok"})"), 3) << text;
    EXPECT_EQ(sample(text, R"(actionhost_actions_total{action="run",outcome="refused"})"), 1);
    EXPECT_EQ(sample(text, R"(actionhost_actions_total{action="read",outcome="error"})"), 1);
    EXPECT_EQ(sample(text, R"(actionhost_action_duration_seconds_count{action="run"})"), 4);
    EXPECT_EQ(sample(text, R"(actionhost_plugin_loaded{plugin="bash"})"), 1);
    EXPECT_GT(sample(text, "actionhost_host_memory_rss_bytes"), 0);

    TempDir d;
    write_file(d / "metrics.txt", text);
    auto check = run_process({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + (d / "metrics.txt")}, 60);
    EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST(HostMetricsHttp, APrometheusServerScrapesItWithTheKeyAsBearerToken) {
    if (!have("/usr/bin/prometheus")) GTEST_SKIP() << "prometheus is not installed (scripts/apt-packages.txt)";
    HostProcess host(HostOptions{.api_key = "scrape-key"});
    for (int i = 0; i < 2; ++i) host.run("true");
    TempDir d;
    const int port = free_port();
    write_file(d / "prometheus.yml",
               "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
               "scrape_configs:\n  - job_name: actionhost\n    authorization:\n      type: Bearer\n      credentials: scrape-key\n"
               "    static_configs:\n      - targets: ['127.0.0.1:" + std::to_string(host.port()) + "']\n");
    Child prometheus({"/usr/bin/prometheus", "--config.file=" + (d / "prometheus.yml"), "--storage.tsdb.path=" + (d / "data"),
                      "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                     d / "prometheus.log");
    // Bounded: Prometheus starts in about a second and scrapes every second.
    json found;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(500ms);
        auto q = run_process({"/usr/bin/curl", "-s", "--max-time", "5", "-G", "http://127.0.0.1:" + std::to_string(port) + "/api/v1/query",
                              "--data-urlencode", R"(query=actionhost_actions_total{action="run",outcome="ok"})"},
                             10);
        if (q.exit_code != 0) continue;
        try {
            json r = json::parse(q.output);
            if (r["status"] == "success" && !r["data"]["result"].empty()) {
                found = r["data"]["result"][0];
                break;
            }
        } catch (const std::exception &) {
        }
    }
    ASSERT_FALSE(found.is_null()) << "no series arrived; Prometheus' log:\n" << read_file(d / "prometheus.log");
    EXPECT_EQ(found["metric"]["job"], "actionhost");
    EXPECT_EQ(found["value"][1], "2");
    // The target is healthy: the scrape (with the bearer token) succeeded, nothing was refused.
    auto targets = run_process({"/usr/bin/curl", "-s", "--max-time", "5", "http://127.0.0.1:" + std::to_string(port) + "/api/v1/targets"}, 10);
    EXPECT_NE(targets.output.find("\"health\":\"up\""), std::string::npos) << targets.output;
}

TEST(HostMetricsHttp, LogsFollowsTheHostsLog) {
    HostProcess host;
    host.run("true");  // loads the bash plugin, which the host logs
    json page = host.get("/logs").json();
    std::string all;
    for (const auto &l : page["lines"]) all += l.get<std::string>() + "\n";
    EXPECT_NE(all.find("loaded plugin bash"), std::string::npos) << all;
    // A long poll from the end with nothing new answers when its wait is over, no later.
    const auto started = std::chrono::steady_clock::now();
    json waited = host.get("/logs?wait=1&since=" + std::to_string(page["next"].get<uint64_t>())).json();
    EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
    EXPECT_EQ(waited["lines"], json::array());
    EXPECT_EQ(waited["next"], page["next"]);
}
