// Browser plugin figures: Chromium start time, a `goto` of a local page and a `click` round trip
// (medians, as ratios against a `noop()` step = the cost of one observation, measured in the same
// run), and the memory of the browser's processes. Prints figures; never fails on time.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "browser_service.hpp"
#include "page_server.hpp"
#include "support/temp_dir.hpp"

namespace ab = actionhost::browser;
namespace at = actionhost::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double time_ms(const std::function<void()> &f) {
    auto t0 = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

long status_kb(pid_t pid, const char *file, const char *field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
    return 0;
}

json act(ab::BrowserService &svc, const std::string &cwd, const std::string &code) {
    json a = {{"action", "browse_interactive"}, {"args", {{"browser_actions", code}, {"return_axtree", false}}}, {"timeout", 60}};
    return json::parse(svc.execute(a.dump(), cwd));
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::max(3, std::atoi(argv[1])) : 10;
    at::PageServer server;
    at::TempDir wd("ahbench-browser");

    // Floor 1: fetching the page over loopback HTTP without a browser.
    std::vector<double> http;
    for (int i = 0; i < n; ++i)
        http.push_back(time_ms([&] {
            Poco::Net::HTTPClientSession s("127.0.0.1", static_cast<Poco::UInt16>(server.port()));
            Poco::Net::HTTPRequest req("GET", "/interact.html");
            s.sendRequest(req);
            Poco::Net::HTTPResponse resp;
            std::string body;
            Poco::StreamCopier::copyToString(s.receiveResponse(resp), body);
        }));

    // Browser start: a fresh Chromium to a ready page, three times.
    std::vector<double> starts;
    for (int i = 0; i < 3; ++i) {
        ab::ServiceOptions o;
        o.working_dir = wd.path();
        ab::BrowserService svc(o);
        if (auto started = svc.start_now(); !started) {
            std::fprintf(stderr, "browser start failed: %s\n", started.error().message.c_str());
            return 1;
        }
        starts.push_back(svc.last_start_seconds() * 1000);
    }

    ab::ServiceOptions o;
    o.working_dir = wd.path();
    ab::BrowserService svc(o);
    const std::string url = server.url("/interact.html");
    act(svc, wd.path(), "goto('" + url + "')");  // warm-up, starts the browser
    json obs = act(svc, wd.path(), "noop(0)");
    std::smatch m;
    std::string content = obs["content"];
    std::string clicker = std::regex_search(content, m, std::regex("\\[([a-zA-Z0-9]+)\\] button 'click me")) ? m[1].str() : "";
    if (clicker.empty()) {
        std::fprintf(stderr, "could not find the button in:\n%s\n", content.c_str());
        return 1;
    }

    std::vector<double> noop, go, click;
    for (int i = 0; i < n; ++i) noop.push_back(time_ms([&] { act(svc, wd.path(), "noop(0)"); }));
    for (int i = 0; i < n; ++i) go.push_back(time_ms([&] { act(svc, wd.path(), "goto('" + url + "')"); }));
    obs = act(svc, wd.path(), "noop(0)");
    content = obs["content"].get<std::string>();
    clicker = std::regex_search(content, m, std::regex("\\[([a-zA-Z0-9]+)\\] button 'click me")) ? m[1].str() : clicker;
    for (int i = 0; i < n; ++i) click.push_back(time_ms([&] {
        json r = act(svc, wd.path(), "click('" + clicker + "')");
        if (r["extras"]["error"] != false) std::fprintf(stderr, "click failed: %s\n", r["extras"]["last_browser_action_error"].dump().c_str());
    }));

    long rss = 0, pss = 0;
    auto pids = svc.browser_pids();
    for (pid_t p : pids) {
        rss += status_kb(p, "status", "VmRSS:");
        pss += status_kb(p, "smaps_rollup", "Pss:");
    }

    const double floor_noop = median(noop);
    std::printf("browser bench (n=%d per figure)\n", n);
    std::printf("  floor: HTTP GET of the page (no browser)   median %8.2f ms\n", median(http));
    std::printf("  floor: noop() step (one observation)       median %8.2f ms\n", floor_noop);
    std::printf("  browser start (Chromium to ready page)     median %8.2f ms  (of 3)\n", median(starts));
    std::printf("  goto(local page) step                      median %8.2f ms  = %.2fx noop\n", median(go), median(go) / floor_noop);
    std::printf("  click(button) step                         median %8.2f ms  = %.2fx noop\n", median(click), median(click) / floor_noop);
    std::printf("  browser processes: %zu, RSS sum %.1f MB, PSS sum %.1f MB\n", pids.size(), rss / 1024.0, pss / 1024.0);
    svc.shutdown();
    return 0;
}
