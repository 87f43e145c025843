#include "audit_commands.hpp"

#include <signal.h>

#include <actionhost/client/audit_log.hpp>
#include <actionhost/client/errors.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/common/json_write.hpp>
#include <actionhost/common/text.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "commands.hpp"

namespace ahctl {

using namespace actionhost::client;
using nlohmann::json;

namespace {

std::string clock_time(double t) {
    const time_t s = static_cast<time_t>(t);
    std::tm tm{};
    localtime_r(&s, &tm);
    char out[32];
    std::strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S", &tm);
    return out;
}

std::string text_of(const json &v) { return v.is_string() ? v.get<std::string>() : actionhost::common::dump_json(v); }

// One line for a person: the seq, the supervisor's time, and what happened.
std::string summary(const AuditLogEntry &e) {
    const json &r = e.record;
    std::string what;
    if (e.kind == "action" && r.value("event", "") == "started") {
        what = "started #" + text_of(r.value("id", json())) + " " + text_of(r.value("action", json()));
        const json args = r.value("args", json::object());
        for (const char *key : {"command", "path", "code"})
            if (args.is_object() && args.contains(key)) what += " " + std::string(key) + "=" + text_of(args[key]);
        const json caller = r.value("caller", json::object());
        what += " from " + caller.value("peer", std::string("-")) + " key " + caller.value("key", std::string("-"));
    } else if (e.kind == "action" && (r.value("event", "") == "upload" || r.value("event", "") == "download")) {
        // A file transfer (not an action): where, its answer, who asked.
        what = r.value("event", "") + " #" + text_of(r.value("id", json())) + " " +
               text_of(r.contains("path") ? r["path"] : r.value("destination", json())) + " http " + text_of(r.value("http_status", json()));
        const json caller = r.value("caller", json::object());
        what += " from " + caller.value("peer", std::string("-")) + " key " + caller.value("key", std::string("-"));
    } else if (e.kind == "action") {
        what = "finished #" + text_of(r.value("id", json())) + " http " + text_of(r.value("http_status", json()));
        const json policy = r.value("policy", json::object());
        if (policy.is_object() && policy.contains("decision"))
            what += " policy " + text_of(policy["decision"]) + (policy.contains("rule") ? " (" + text_of(policy["rule"]) + ")" : "");
        if (r.contains("observation")) what += " " + text_of(r["observation"]);
        if (r.contains("exit_code")) what += " exit " + text_of(r["exit_code"]);
        if (r.contains("bytes")) what += " " + text_of(r["bytes"]) + " B";
        if (r.contains("duration_ms")) {
            char ms[32];
            std::snprintf(ms, sizeof ms, " %.1f ms", r["duration_ms"].get<double>());
            what += ms;
        }
        if (r.contains("files")) what += " changed " + text_of(r["files"]);
    } else {
        what = actionhost::common::dump_json(r);
    }
    return std::to_string(e.seq) + "  " + clock_time(e.time) + "  " + e.kind + "  " + what;
}

void print(const AuditLogEntry &e, bool as_json) {
    std::cout << (as_json ? actionhost::common::dump_json(e.to_json()) : actionhost::common::printable_for_terminal(summary(e))) << "\n";
}

int verify(const std::string &dir, bool as_json) {
    const AuditVerification v = verify_audit_log(dir);
    if (as_json) {
        std::cout << actionhost::common::dump_json(json{{"ok", v.ok}, {"problem", v.problem}, {"entries", v.entries}, {"first_seq", v.first_seq},
                                                        {"last_seq", v.last_seq}, {"dropped_through_seq", v.dropped_through_seq},
                                                        {"last_hash", v.last_hash}})
                  << "\n";
    } else if (v.ok) {
        std::cout << "ok: " << v.entries << " entries, seq " << v.first_seq << ".." << v.last_seq
                  << (v.dropped_through_seq ? " (seq 1.." + std::to_string(v.dropped_through_seq) + " dropped by rotation, declared)" : "")
                  << ", last hash " << v.last_hash << "\n";
    } else {
        std::cerr << "[ahctl] the audit trail is broken: " << actionhost::common::printable_for_terminal(v.problem) << "\n";
    }
    return v.ok ? kOk : kActionFailed;
}

// Follows until Ctrl-C or SIGTERM (taken with sigtimedwait between polls, so no handler is needed),
// the supervisor's "sandbox_ended" entry, or the trail's directory going away.
int follow(const std::string &dir, bool as_json, uint64_t after_seq) {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    AuditLogFollower follower(dir, after_seq);
    bool ended = false;
    const timespec interval{0, 250'000'000};
    while (!ended) {
        follower.poll([&](const AuditLogEntry &e) {
            print(e, as_json);
            ended = ended || (e.kind == "sandbox" && e.record.value("event", "") == "sandbox_ended");
        });
        std::cout.flush();
        if (ended) break;
        if (sigtimedwait(&stop, nullptr, &interval) > 0) break;
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) break;
    }
    return kOk;
}

}  // namespace

int cmd_log(const Options &given) {
    Options o = given;
    if (!o.session && !o.args.empty()) {
        o.session = o.args.front();
        o.args.erase(o.args.begin());
    }
    if (!o.session) throw UsageError("ahctl log needs a session: ahctl log SESSION [-f] [--json] [--verify]");
    if (!o.args.empty()) throw UsageError("ahctl log: unexpected argument " + o.args.front());
    const bool follow_it = o.named.count("-f") > 0 || o.named.count("--follow") > 0;
    const bool verify_it = o.named.count("--verify") > 0;
    if (follow_it && verify_it) throw UsageError("ahctl log: --verify and -f do not go together");
    const Config config = load_config(o, current_environment());
    const std::string dir = audit_log_dir(StateStore::default_dir(config.get_text("core.state_dir")), *o.session);
    try {
        if (verify_it) return verify(dir, o.json);
        uint64_t last = 0;
        for (const auto &e : read_audit_log(dir)) {
            print(e, o.json);
            last = e.seq;
        }
        return follow_it ? follow(dir, o.json, last) : kOk;
    } catch (const RuntimeError &e) {
        std::cerr << "[ahctl] " << actionhost::common::printable_for_terminal(e.what()) << "\n";
        return kActionFailed;
    }
}

}  // namespace ahctl
