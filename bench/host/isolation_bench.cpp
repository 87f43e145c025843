// The cost of running a plugin out of the host's process (docs/plugin-guide.md, "Isolation"): `echo hi`
// through the bash plugin in the host, and through the same plugin isolated (`--set host.isolate=bash`:
// a worker process, every call and its answer forwarded over a socketpair), on two hosts started side by
// side, their round trips interleaved so both series see the same load. Prints both medians and their
// ratio; never fails on time.
//   build/bin/ah_bench_isolation [iterations]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/beast_client.hpp"
#include "support/host_process.hpp"
#include "support/stats.hpp"

using namespace actionhost::bench;
using namespace actionhost::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string echo_request(const BeastClient &http) {
    const json action = {{"action", "run"},
                         {"args", {{"command", "echo hi"}, {"is_input", false}, {"thought", ""}, {"blocking", true},
                                   {"is_static", false}, {"cwd", nullptr}, {"hidden", false}}},
                         {"timeout", 120.0}};
    return http.serialized_post_json("/execute_action", json{{"action", action}}.dump());
}

double round_trip_ms(BeastClient &http, const std::string &request) {
    const auto t = Clock::now();
    const BeastAnswer a = http.send_serialized(request);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    if (a.status != 200 || a.body.find("hi") == std::string::npos)
        throw std::runtime_error("HTTP " + std::to_string(a.status) + ": " + a.body);
    return ms;
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    TempDir home("ahbenchhome");
    HostOptions in_process;
    in_process.env["HOME"] = home.path();  // no profile scripts in the way: measure the forwarding
    HostOptions isolated = in_process;
    isolated.args = {"--set", "host.isolate=bash"};
    HostProcess a(in_process), b(isolated);
    BeastClient ha("127.0.0.1", a.port()), hb("127.0.0.1", b.port());
    const std::string ra = echo_request(ha), rb = echo_request(hb);
    for (int i = 0; i < 50; ++i) {  // warm-up: both plugins loaded, both shells started
        round_trip_ms(ha, ra);
        round_trip_ms(hb, rb);
    }
    std::vector<double> sa, sb;
    for (int i = 0; i < n; ++i) {
        sa.push_back(round_trip_ms(ha, ra));
        sb.push_back(round_trip_ms(hb, rb));
    }
    const Figures fa = figures(sa), fb = figures(sb);
    std::printf("isolation: `echo hi` through bash, %d round trips each, interleaved\n", n);
    print_row("in the host's process", fa);
    print_row("isolated (host.isolate=bash)", fb);
    print_ratio("isolated / in-process", fb, fa);
    std::printf("  added per call: %.3f ms (median)\n", fb.median_ms - fa.median_ms);
    return 0;
}
