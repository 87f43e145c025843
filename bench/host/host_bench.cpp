// Foundation benchmark: host cold start to the first /alive answer, a `read` of a small file over HTTP,
// and `GET /alive` with 2 000 idle connections open (anyone who reaches the port may open them) — each
// as a median and as a ratio against a floor or the same host without them, measured in the same run;
// and the host's resident memory with bash loaded. Round trips go through the benchmarks' Beast client, as
// in bash_bench (support/beast_client.hpp): the tests' Poco client spent about as long in its own
// iostreams as the host spent answering /alive.
//   build/bin/ah_bench_host [iterations]
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/beast_client.hpp"
#include "support/host_process.hpp"
#include "support/loopback_floor.hpp"
#include "support/proc_file.hpp"
#include "support/stats.hpp"

using namespace actionhost::bench;
using namespace actionhost::testing;

extern char **environ;

namespace {

// Spawns the host and returns the milliseconds until GET /alive answers 200, then stops it.
double cold_start_ms(const std::vector<std::string> &extra) {
    TempDir dir("ahbench");
    const std::string port_file = dir / "port";
    // The shell's start-up files are part of a cold start. AH_BENCH_USERNAME picks the sandbox user
    // (created by the host when missing, as OpenHands does); the default, root, runs this machine's
    // own ~/.bashrc, which may do slow things of its own (pyenv init takes seconds here).
    const char *user = std::getenv("AH_BENCH_USERNAME");
    std::vector<std::string> argv = {build_path("bin/actionhost"), "0", "--host", "127.0.0.1", "--port-file", port_file,
                                     "--working-dir", dir.path(), "--username", user ? user : "root",
                                     "--user-id", user ? "4242" : "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::vector<char *> c;
    for (auto &a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    posix_spawn(&pid, c[0], &fa, nullptr, c.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    double ms = -1;
    for (int i = 0; i < 20000; ++i) {  // ≤ 10 s
        std::ifstream pf(port_file);
        int port = 0;
        if (pf >> port && port > 0) {
            Http http("127.0.0.1", port, 5);
            if (http.get("/alive").status == 200)
                ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    return ms;
}

// Opens `count` connections to the port and sends nothing on them (fds returned; -1 entries not opened).
std::vector<int> idle_connections(int port, int count) {
    std::vector<int> fds;
    for (int i = 0; i < count; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
            fds.push_back(fd);
        } else if (fd >= 0) {
            ::close(fd);
        }
    }
    return fds;
}

double spawn_true_ms() {
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
    posix_spawn(&pid, argv[0], nullptr, nullptr, argv, environ);
    waitpid(pid, nullptr, 0);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
    const int starts = std::max(5, n / 100);
    std::printf("actionhost foundation benchmark (%d round trips, %d cold starts)\n", n, starts);

    // Floors, measured now, on this machine.
    LoopbackFloorServer floor_server;
    BeastClient floor_http("127.0.0.1", floor_server.port());
    const Figures floor_rt = measure(n, [&] { floor_http.post_json("/", "{\"path\":\"/x\"}"); });
    std::vector<double> spawn_samples;
    for (int i = 0; i < starts; ++i) spawn_samples.push_back(spawn_true_ms());
    const Figures floor_spawn = figures(spawn_samples);

    std::vector<double> start_samples;
    for (int i = 0; i < starts; ++i) start_samples.push_back(cold_start_ms({}));
    const Figures start = figures(start_samples);

    HostProcess host;
    write_file(host.working_dir() + "/small.txt", "line one\nline two\nline three\n");
    const std::string body = R"({"action":{"action":"read","args":{"path":"small.txt"}}})";
    BeastClient http("127.0.0.1", host.port());
    if (http.post_json("/execute_action", body).body.find("line two") == std::string::npos) {
        std::fprintf(stderr, "read did not return the file\n");
        return 1;
    }
    const Figures read_rt = measure(n, [&] { http.post_json("/execute_action", body); });
    const Figures alive_rt = measure(n, [&] { http.get("/alive"); });
    // bash is loaded (the read above did not need it; the first run does).
    const bool bash_ran = http.post_json("/execute_action", R"({"action":{"action":"run","args":{"command":"echo hi"}}})").status == 200;
    const long rss_with_bash = resident_kib(host.pid());

    // 2 000 connections that never send a byte, then /alive again, same host, same run.
    rlimit files{};
    ::getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
    std::vector<int> idle = idle_connections(host.port(), 2000);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // accepted
    const Figures alive_idle = measure(n, [&] { http.get("/alive"); });
    const size_t idle_open = idle.size();
    for (int fd : idle) ::close(fd);

    std::printf("\nfloors\n");
    print_row("bare loopback HTTP round trip", floor_rt);
    print_row("spawn + exit of /bin/true", floor_spawn);
    std::printf("\nactionhost\n");
    print_row("cold start to first /alive (bash loaded)", start);
    print_row("GET /alive round trip", alive_rt);
    print_row("read of a small file over HTTP", read_rt);
    print_row("GET /alive with " + std::to_string(idle_open) + " idle connections open", alive_idle);
    std::printf("  host resident memory with bash loaded%s: %.1f MB\n", bash_ran ? "" : " (bash did NOT answer)", rss_with_bash / 1024.0);
    std::printf("\nratios\n");
    print_ratio("cold start vs process spawn", start, floor_spawn);
    print_ratio("read round trip vs bare HTTP", read_rt, floor_rt);
    print_ratio("/alive round trip vs bare HTTP", alive_rt, floor_rt);
    print_ratio("/alive with idle connections vs without", alive_idle, alive_rt);
    std::printf("\ngoals: ready <= 50 ms (%s), read round trip <= 0.2 ms median (%s), /alive <= 0.05 ms median (%s),\n"
                "       2000 idle connections slow /alive <= 2x (%s), RSS with bash <= 12 MB (%s)\n",
                start.median_ms <= 50 ? "met" : "NOT met", read_rt.median_ms <= 0.2 ? "met" : "NOT met",
                alive_rt.median_ms <= 0.05 ? "met" : "NOT met", alive_idle.median_ms <= 2 * alive_rt.median_ms ? "met" : "NOT met",
                rss_with_bash > 0 && rss_with_bash <= 12 * 1024 ? "met" : "NOT met");
    return 0;
}
