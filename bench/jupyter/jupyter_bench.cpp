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

// A jupyter_client_bench.py process serving batches over pipes.
struct PyClient {
    pid_t pid = -1;
    FILE *to = nullptr, *from = nullptr;
    nlohmann::json hello;
    explicit PyClient(const std::string &flags) {
        int in[2], out[2];
        if (pipe(in) != 0 || pipe(out) != 0) return;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addclose(&fa, in[1]);
        posix_spawn_file_actions_addclose(&fa, out[0]);
        std::string py = "/usr/bin/python3", script = AH_JUPYTER_CLIENT_BENCH, f = flags;
        std::vector<char *> argv = {py.data(), script.data()};
        if (!f.empty()) argv.push_back(f.data());
        argv.push_back(nullptr);
        const int rc = posix_spawn(&pid, py.c_str(), &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        if (rc != 0) {
            pid = -1;
            ::close(in[1]);
            ::close(out[0]);
            return;
        }
        to = fdopen(in[1], "w");
        from = fdopen(out[0], "r");
        hello = read_json();
    }
    ~PyClient() {
        if (to) {
            std::fputs("quit\n", to);
            std::fclose(to);
        }
        if (from) std::fclose(from);
        if (pid > 0) {
            int st = 0;
            waitpid(pid, &st, 0);
        }
    }
    nlohmann::json read_json() {
        std::string line;
        char buf[65536];
        while (from && std::fgets(buf, sizeof buf, from)) {
            line += buf;
            if (!line.empty() && line.back() == '\n') break;
        }
        return nlohmann::json::parse(line, nullptr, false);
    }
    bool ok() const { return hello.is_object(); }
    // Runs `count` cells of `kind` ("small" or "big"), appending their durations (seconds).
    bool batch(const char *kind, int count, std::vector<double> &times) {
        std::fprintf(to, "%s %d\n", kind, count);
        std::fflush(to);
        nlohmann::json j = read_json();
        if (!j.is_array()) return false;
        for (const auto &t : j) times.push_back(t.get<double>());
        return true;
    }
};
}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 30;
    const int n_big = argc > 2 ? std::atoi(argv[2]) : 10;
    const std::string big_code = "print('x' * 1048575)";

    // Ours: host start, first cell (kernel start included).
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
    // The floors: jupyter_client with the kernel as it comes, and with the kernel set up as our plugin
    // sets up its own (ipykernel's per-reply sleep off), which compares the two clients alone.
    PyClient floor(""), equal("--no-execute-sleep");
    if (!floor.ok() || !equal.ok()) {
        std::cerr << "jupyter_client bench failed to start (python3-jupyter-client installed?)\n";
        return 1;
    }

    // Batches side by side: the machine's speed drifts over a run, and each ratio compares like with like.
    std::vector<double> small, big, floor_small, floor_big, equal_small, equal_big;
    const int batch = 20;
    for (int done = 0; done < n; done += batch) {
        const int k = std::min(batch, n - done);
        for (int i = 0; i < k; ++i) {
            const auto t = Clock::now();
            c.cell("1+1");
            small.push_back(seconds_since(t));
        }
        if (!floor.batch("small", k, floor_small) || !equal.batch("small", k, equal_small)) return 1;
    }
    for (int i = 0; i < n_big; ++i) {
        const auto t = Clock::now();
        nlohmann::json o = c.cell(big_code);
        big.push_back(seconds_since(t));
        if (o.value("content", "").find("Observation truncated") == std::string::npos) std::cerr << "1 MB cell: unexpected content\n";
        if (!floor.batch("big", 1, floor_big) || !equal.batch("big", 1, equal_big)) return 1;
    }

    const double ms = 1000.0;
    auto row = [&](const char *what, const std::vector<double> &ours, const std::vector<double> &theirs) {
        std::printf("  %-22s actionhost %8.2f ms   jupyter_client %8.2f ms   ratio %.2f\n", what, median(ours) * ms,
                    median(theirs) * ms, median(ours) / median(theirs));
    };
    std::printf("bench/jupyter (medians, batches interleaved; ratio = actionhost over HTTP / jupyter_client in-process)\n");
    row("1+1 round trip", small, floor_small);
    row("1 MB cell round trip", big, floor_big);
    std::printf("  the clients alone (jupyter_client's kernel also without ipykernel's 0.5 ms per-reply sleep, as ours):\n");
    row("1+1 round trip", small, equal_small);
    row("1 MB cell round trip", big, equal_big);
    std::printf("  kernel start -> first result: actionhost %.0f ms (host start -> first result %.0f ms)   jupyter_client %.0f ms\n",
                ours_first * ms, ours_host_to_first * ms, floor.hello["start_to_first_result"].get<double>() * ms);
    std::printf("  iterations: %d x 1+1, %d x 1 MB\n", n, n_big);
    return 0;
}
