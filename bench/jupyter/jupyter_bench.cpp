// run_ipython speed: `1+1` and a cell printing 1 MB, round trip over HTTP through the real host and plugin,
// against the floor of Python's jupyter_client talking to the same kind of kernel in the same run
// (jupyter_client_bench.py under /usr/bin/python3). Also kernel start to first result for both. Prints
// medians and ratios; never fails on time.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Host {
    pid_t pid = -1;
    int port = 0;
    std::string dir;
    ~Host() {
        if (pid > 0) {
            kill(pid, SIGTERM);
            int st = 0;
            waitpid(pid, &st, 0);
        }
        std::error_code ec;
        if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
};

bool start_host(Host &h) {
    char tmpl[] = "/tmp/ahbench-jupyter-XXXXXX";
    if (!mkdtemp(tmpl)) return false;
    h.dir = tmpl;
    std::filesystem::create_directories(h.dir + "/ws");
    const std::string bin = std::string(AH_BUILD_DIR) + "/bin/actionhost";
    const std::string port_file = h.dir + "/port", log = h.dir + "/host.log";
    std::vector<std::string> args = {bin, "0", "--host", "127.0.0.1", "--port-file", port_file, "--working-dir",
                                     h.dir + "/ws", "--plugins", "jupyter", "--username", "root", "--user-id", "0",
                                     // Lazy start, so the first cell measures kernel start to first result.
                                     "--set", "ACTIONHOST_JUPYTER_EAGER=0"};
    if (getuid() != 0) {
        args[11] = std::getenv("USER") ? std::getenv("USER") : "nobody";
        args[13] = std::to_string(getuid());
    }
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    const int rc = posix_spawn(&h.pid, bin.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return false;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline) {
        std::ifstream pf(port_file);
        if (pf >> h.port && h.port > 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

struct Client {
    Poco::Net::HTTPClientSession session;
    explicit Client(int port) : session("127.0.0.1", static_cast<Poco::UInt16>(port)) {
        session.setKeepAlive(true);
        session.setTimeout(Poco::Timespan(300, 0));
    }
    nlohmann::json cell(const std::string &code) {
        nlohmann::json body = {{"action", {{"action", "run_ipython"}, {"args", {{"code", code}}}, {"timeout", 120}}}};
        const std::string text = body.dump();
        Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_POST, "/execute_action", Poco::Net::HTTPMessage::HTTP_1_1);
        req.setContentType("application/json");
        req.setContentLength(static_cast<std::streamsize>(text.size()));
        session.sendRequest(req) << text;
        Poco::Net::HTTPResponse resp;
        std::istream &in = session.receiveResponse(resp);
        std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        return nlohmann::json::parse(out);
    }
};
}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 30;
    const int n_big = argc > 2 ? std::atoi(argv[2]) : 10;
    const std::string big_code = "print('x' * 1048575)";

    // Ours: host start, first cell (kernel start included), then round trips.
    Host host;
    const auto t_host = Clock::now();
    if (!start_host(host)) {
        std::cerr << "cannot start the host\n";
        return 1;
    }
    Client c(host.port);
    const auto t_first = Clock::now();
    nlohmann::json first = c.cell("1+1");
    const double ours_first = seconds_since(t_first);
    const double ours_host_to_first = seconds_since(t_host);
    if (first.value("content", "").rfind("2", 0) != 0) {
        std::cerr << "unexpected first observation: " << first.dump() << "\n";
        return 1;
    }
    std::vector<double> small, big;
    for (int i = 0; i < n; ++i) {
        const auto t = Clock::now();
        c.cell("1+1");
        small.push_back(seconds_since(t));
    }
    for (int i = 0; i < n_big; ++i) {
        const auto t = Clock::now();
        nlohmann::json o = c.cell(big_code);
        big.push_back(seconds_since(t));
        if (o.value("content", "").find("Observation truncated") == std::string::npos) std::cerr << "1 MB cell: unexpected content\n";
    }

    // The floor, in the same run.
    const std::string cmd = "/usr/bin/python3 " + std::string(AH_JUPYTER_CLIENT_BENCH) + " " + std::to_string(n) + " " +
                            std::to_string(n_big) + " 2>/dev/null";
    FILE *p = popen(cmd.c_str(), "r");
    std::string py;
    char buf[4096];
    while (p && fgets(buf, sizeof buf, p)) py += buf;
    if (p) pclose(p);
    nlohmann::json floor = nlohmann::json::parse(py, nullptr, false);
    if (floor.is_discarded()) {
        std::cerr << "jupyter_client bench failed: " << py << "\n";
        return 1;
    }
    const double ms = 1000.0;
    std::printf("bench/jupyter (medians; ratio = actionhost over HTTP / jupyter_client in-process)\n");
    std::printf("  1+1 round trip        actionhost %8.2f ms   jupyter_client %8.2f ms   ratio %.2f\n", median(small) * ms,
                floor["one_plus_one_median"].get<double>() * ms, median(small) / floor["one_plus_one_median"].get<double>());
    std::printf("  1 MB cell round trip  actionhost %8.2f ms   jupyter_client %8.2f ms   ratio %.2f\n", median(big) * ms,
                floor["one_mb_median"].get<double>() * ms, median(big) / floor["one_mb_median"].get<double>());
    std::printf("  kernel start -> first result: actionhost %.0f ms (host start -> first result %.0f ms)   jupyter_client %.0f ms\n",
                ours_first * ms, ours_host_to_first * ms, floor["start_to_first_result"].get<double>() * ms);
    std::printf("  iterations: %d x 1+1, %d x 1 MB\n", n, n_big);
    return 0;
}
