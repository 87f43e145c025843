#include "ops_commands.hpp"

#include <unistd.h>

#include <actionhost/client/config.hpp>
#include <actionhost/client/errors.hpp>
#include <actionhost/client/fleet.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/client/wire_client.hpp>
#include <actionhost/common/json_write.hpp>
#include <actionhost/common/text.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "commands.hpp"

namespace ahctl {

using namespace actionhost::client;
using actionhost::common::printable_for_terminal;
using actionhost::common::printable_name;
using nlohmann::json;

namespace {

// A host that does not answer within this is shown as unreachable: top never waits on a dead sandbox.
constexpr double kScrapeTimeoutS = 2;

// "name{a=\"x\",b=\"y\"} value": the name, the labels by name, the value; nullopt for anything else.
struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};
std::optional<Sample> parse_sample(const std::string &line) {
    if (line.empty() || line[0] == '#') return std::nullopt;
    Sample s;
    size_t i = line.find_first_of("{ ");
    if (i == std::string::npos) return std::nullopt;
    s.name = line.substr(0, i);
    if (line[i] == '{') {
        ++i;
        while (i < line.size() && line[i] != '}') {
            const size_t eq = line.find("=\"", i);
            if (eq == std::string::npos) return std::nullopt;
            const std::string key = line.substr(i, eq - i);
            std::string value;
            for (i = eq + 2; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] == '\\' && i + 1 < line.size()) {
                    ++i;
                    value += line[i] == 'n' ? '\n' : line[i];
                } else {
                    value += line[i];
                }
            }
            if (i >= line.size()) return std::nullopt;
            s.labels[key] = value;
            ++i;  // the closing quote
            if (i < line.size() && line[i] == ',') ++i;
        }
        if (i >= line.size()) return std::nullopt;
        ++i;  // '}'
    }
    char *end = nullptr;
    const std::string rest = line.substr(i);
    s.value = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) return std::nullopt;
    return s;
}

std::string bytes_text(std::optional<double> v) {
    if (!v) return "-";
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = *v;
    int u = 0;
    while (x >= 1024 && u < 4) x /= 1024, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : "%.1f%s", x, units[u]);
    return buf;
}

struct Scrape {
    std::map<std::string, double> figures;
    std::string error;  // why there are none
    std::chrono::steady_clock::time_point at;
};

Scrape scrape(const json &record) {
    Scrape s;
    try {
        WireClient client(record.value("url", ""), record.value("session_api_key", ""));
        client.policy().default_timeout_s = kScrapeTimeoutS;
        client.policy().closed_attempts = 1;  // no retries with back-off: the next refresh is the retry
        client.policy().too_many_attempts = 1;
        s.figures = top_figures(client.metrics());
    } catch (const WireTimeout &) {
        s.error = "no answer within " + std::to_string(static_cast<int>(kScrapeTimeoutS)) + " s (stopped, paused or hung)";
    } catch (const std::exception &e) {
        s.error = e.what();
    }
    s.at = std::chrono::steady_clock::now();
    return s;
}

std::optional<double> figure(const Scrape &s, const std::string &name) {
    auto it = s.figures.find(name);
    return it == s.figures.end() ? std::nullopt : std::optional<double>(it->second);
}

void print_frame(const std::vector<json> &records, const std::vector<Scrape> &now, const std::map<std::string, Scrape> &before,
                 bool json_out) {
    json out = json::array();
    if (!json_out)
        std::printf("%-20s %-9s %6s %10s %10s %6s %10s %8s %7s\n", "SESSION", "RUNTIME", "CPU%", "MEMORY", "LIMIT", "PIDS", "DISK USED",
                    "ACTIONS", "FAILED");
    for (size_t i = 0; i < records.size(); ++i) {
        const std::string sid = records[i].value("session_id", "");
        const Scrape &s = now[i];
        std::optional<double> cpu_percent;
        const auto cpu = figure(s, "actionhost_sandbox_cpu_seconds_total");
        if (auto prev = before.find(sid); prev != before.end() && cpu) {
            const auto was = figure(prev->second, "actionhost_sandbox_cpu_seconds_total");
            const double wall = std::chrono::duration<double>(s.at - prev->second.at).count();
            if (was && wall > 0) cpu_percent = 100.0 * (*cpu - *was) / wall;
        }
        if (json_out) {
            json row = {{"session_id", sid}, {"runtime", records[i].value("runtime", "")}};
            if (!s.error.empty()) row["error"] = s.error;
            if (cpu_percent) row["cpu_percent"] = *cpu_percent;
            for (const auto &[k, v] : s.figures) row["metrics"][k] = v;
            out.push_back(row);
            continue;
        }
        if (!s.error.empty()) {
            std::printf("%-20s %-9s unreachable: %s\n", printable_name(sid).c_str(), printable_name(records[i].value("runtime", "")).c_str(),
                        printable_for_terminal(s.error).c_str());
            continue;
        }
        char cpu_text[16] = "-";
        if (cpu_percent) std::snprintf(cpu_text, sizeof cpu_text, "%.1f", *cpu_percent);
        const auto pids = figure(s, "actionhost_sandbox_pids");
        std::printf("%-20s %-9s %6s %10s %10s %6s %10s %8.0f %7.0f\n", printable_name(sid).c_str(),
                    printable_name(records[i].value("runtime", "")).c_str(), cpu_text,
                    bytes_text(figure(s, "actionhost_sandbox_memory_bytes")).c_str(),
                    bytes_text(figure(s, "actionhost_sandbox_memory_limit_bytes")).c_str(),
                    pids ? std::to_string(static_cast<long long>(*pids)).c_str() : "-",
                    bytes_text(figure(s, "actionhost_sandbox_disk_used_bytes")).c_str(),
                    figure(s, "actionhost_actions_total").value_or(0), figure(s, "actionhost_actions_total:not_ok").value_or(0));
    }
    if (json_out) std::cout << actionhost::common::dump_json(out) << "\n";
    std::fflush(stdout);
}

double interval_of(const Options &o) {
    auto it = o.named.find("--interval");
    if (it == o.named.end() || it->second.empty()) return 2;
    try {
        size_t used = 0;
        const double v = std::stod(it->second[0], &used);
        if (used == it->second[0].size() && v >= 0.1 && v <= 3600) return v;
    } catch (...) {
    }
    throw UsageError("--interval needs a number of seconds from 0.1 to 3600, got: " + it->second[0]);
}

}  // namespace

std::map<std::string, double> top_figures(const std::string &text) {
    std::map<std::string, double> out;
    size_t at = 0;
    while (at < text.size()) {
        const size_t eol = std::min(text.find('\n', at), text.size());
        const auto s = parse_sample(text.substr(at, eol - at));
        at = eol + 1;
        if (!s) continue;
        if (s->name == "actionhost_actions_total") {
            out[s->name] += s->value;
            if (s->labels.count("outcome") && s->labels.at("outcome") != "ok") out[s->name + ":not_ok"] += s->value;
        } else if (s->labels.empty()) {
            out[s->name] = s->value;
        } else if (s->labels.size() == 1 && s->labels.count("path") && s->labels.at("path") == "/") {
            out[s->name] = s->value;
        }
    }
    return out;
}

int cmd_top(const Options &o) {
    const bool once = o.named.count("--once") > 0;
    const double interval = interval_of(o);
    if (!o.args.empty()) throw UsageError("top takes no arguments (it shows every kept-alive runtime)");
    Config config = load_config(o, current_environment());
    StateStore store(StateStore::default_dir(config.get_text("core.state_dir")));
    const bool clear = !once && !o.json && ::isatty(STDOUT_FILENO);
    std::map<std::string, Scrape> before;  // by session id: CPU% is the use between two scrapes
    for (bool first = true;; first = false) {
        const std::vector<json> records = store.list();
        std::vector<Scrape> now(records.size());
        for_each_concurrently(records.size(), o.jobs.value_or(64), [&](size_t i) { now[i] = scrape(records[i]); });
        if (first) {
            // A first CPU figure needs a second scrape: half a second later (or the interval, if shorter).
            for (size_t i = 0; i < records.size(); ++i) before[records[i].value("session_id", "")] = std::move(now[i]);
            std::this_thread::sleep_for(std::chrono::duration<double>(std::min(interval, 0.5)));
            continue;
        }
        if (clear) std::printf("\x1b[H\x1b[2J");
        print_frame(records, now, before, o.json);
        if (once) return kOk;
        before.clear();
        for (size_t i = 0; i < records.size(); ++i) before[records[i].value("session_id", "")] = std::move(now[i]);
        std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    }
}

int cmd_logs(const Options &o) {
    const bool follow = o.named.count("-f,--follow") > 0;
    std::string sid = o.session.value_or("");
    if (o.args.size() > 1 || (o.args.size() == 1 && !sid.empty() && o.args[0] != sid))
        throw UsageError("logs takes one session id (ahctl logs [-f] SESSION)");
    if (!o.args.empty()) sid = o.args[0];
    if (sid.empty()) throw UsageError("logs needs a session id (ahctl logs [-f] SESSION; ahctl ps lists them)");
    Config config = load_config(o, current_environment());
    StateStore store(StateStore::default_dir(config.get_text("core.state_dir")));
    const auto record = store.get(sid);
    if (!record) {
        std::cerr << "[ahctl] no kept-alive runtime with session id " << printable_name(sid) << "\n";
        return kActionFailed;
    }
    WireClient client(record->value("url", ""), record->value("session_api_key", ""));
    client.policy().default_timeout_s = 10;
    uint64_t next = 0;
    for (;;) {
        // Following: a long poll of up to 25 s per request, so a new line shows at once.
        json page;
        try {
            page = client.logs(next, follow ? 25 : 0);
        } catch (const std::exception &) {
            // A followed runtime that was stopped meanwhile ends the command as `docker logs -f` ends
            // with its container: the log is complete, nothing failed. `ahctl stop` removes the record
            // just after the host is gone, so that is waited for a moment; a record still there after
            // it names a runtime that died or does not answer: an error.
            if (!follow || next == 0) throw;
            for (int i = 0; i < 50 && store.get(sid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (store.get(sid)) throw;
            std::cerr << "[ahctl] " << printable_name(sid) << " stopped\n";
            return kOk;
        }
        if (const uint64_t dropped = page.value("dropped", uint64_t{0}); dropped > 0)
            std::cerr << "[ahctl] " << dropped << " older line(s) no longer kept by the host\n";
        for (const auto &line : page.value("lines", json::array())) std::cout << line.get<std::string>() << "\n";
        std::cout << std::flush;
        next = page.value("next", next);
        if (!follow) return kOk;
    }
}

}  // namespace ahctl
