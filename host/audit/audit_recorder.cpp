#include "audit/audit_recorder.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

#include <actionhost/common/digest.hpp>
#include <actionhost/common/json_io.hpp>
#include <actionhost/common/simdjson_document.hpp>

#include "actions/router.hpp"

namespace actionhost::host::audit {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

using common::sha256_hex;

// Long strings cut, recursively; the depth is bounded by the parser's (kMaxJsonDepth).
nlohmann::json summarised(const nlohmann::json &v) {
    if (v.is_string()) {
        const std::string &s = v.get_ref<const std::string &>();
        if (s.size() <= kMaxArgText) return v;
        // Cut at a character boundary, so the record stays valid UTF-8.
        size_t cut = kMaxArgText;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        return {{"text_head", s.substr(0, cut)}, {"bytes", s.size()}, {"sha256", sha256_hex(s)}};
    }
    if (v.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto &[k, item] : v.items()) out[k] = summarised(item);
        return out;
    }
    if (v.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &item : v) out.push_back(summarised(item));
        return out;
    }
    return v;
}

// The facts of an observation the record keeps: its type, extras.metadata.exit_code, and whether it
// is an error observation. Read with simdjson (a pass over text the host just checked the same way).
void observation_facts(std::string_view text, nlohmann::json &record) {
    common::with_simdjson_document(text, [&](simdjson::dom::element root) {
        std::string_view kind;
        if (root["observation"].get(kind) == simdjson::SUCCESS) record["observation"] = std::string(kind);
        int64_t exit_code = 0;
        if (root["extras"]["metadata"]["exit_code"].get(exit_code) == simdjson::SUCCESS) record["exit_code"] = exit_code;
    });
}

}  // namespace

nlohmann::json summarise_action(const nlohmann::json &action) { return summarised(action); }

std::string key_fingerprint(const std::string &key) { return key.empty() ? "none" : sha256_hex(key).substr(0, 16); }

AuditRecorder::AuditRecorder(int fd, const std::string &session_key) : fd_(fd), key_fingerprint_(key_fingerprint(session_key)) {
    if (fd_ < 0) return;
    ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
    const timeval tv{static_cast<time_t>(kSendTimeout.count()), 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

AuditRecorder::~AuditRecorder() {
    if (fd_ >= 0) ::close(fd_);
}

void AuditRecorder::send_record(nlohmann::json record) {
    if (const uint64_t lost = lost_.exchange(0); lost > 0) record["lost_before"] = lost;
    const std::string text = common::dump_json(record);
    for (int tries = 0; tries < 3; ++tries) {
        if (::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size())) return;
        if (errno != EINTR) break;
    }
    lost_.fetch_add(1);
}

uint64_t AuditRecorder::started(const nlohmann::json &action, const std::string &session, const Caller &caller) {
    const uint64_t id = next_id_.fetch_add(1);
    nlohmann::json type;
    if (action.is_object())
        if (auto it = action.find("action"); it != action.end() && it->is_string()) type = *it;
    nlohmann::json record = {{"event", "started"},
                             {"id", id},
                             {"session", session},
                             {"action", std::move(type)},
                             {"args", summarised(action.is_object() ? action.value("args", nlohmann::json::object()) : action)},
                             {"caller", {{"peer", caller.peer}, {"request_id", caller.request_id}, {"key", key_fingerprint_}}},
                             {"host_time", now_s()}};
    send_record(std::move(record));
    return id;
}

void AuditRecorder::finished(uint64_t id, const RouteResult &result, std::chrono::steady_clock::duration took,
                             const nlohmann::json &policy, const std::vector<std::string> &files) {
    nlohmann::json record = {{"event", "finished"},
                             {"id", id},
                             {"policy", policy},
                             {"http_status", result.http_status},
                             {"duration_ms", std::chrono::duration<double, std::milli>(took).count()}};
    if (!result.text.empty()) {
        record["bytes"] = result.text.size();
        observation_facts(result.text, record);
    } else if (result.body.is_object()) {
        record["bytes"] = common::dump_json(result.body).size();
        if (result.body.contains("observation")) record["observation"] = result.body["observation"];
        if (result.body.contains("detail")) record["detail"] = summarised(result.body["detail"]);
    }
    if (!files.empty() && result.http_status == 200 && !result.is_error_observation() && !result.denied_by_policy)
        record["files"] = summarised(nlohmann::json(files));
    send_record(std::move(record));
}

void AuditRecorder::transfer(const std::string &event, nlohmann::json details, const Caller &caller) {
    nlohmann::json record = summarised(details);
    record["event"] = event;
    record["id"] = next_id_.fetch_add(1);
    record["caller"] = {{"peer", caller.peer}, {"request_id", caller.request_id}, {"key", key_fingerprint_}};
    record["host_time"] = now_s();
    send_record(std::move(record));
}

ActionAudit::ActionAudit(AuditRecorder *recorder, const nlohmann::json &action, const std::string &session, const Caller &caller)
    : recorder_(recorder && recorder->enabled() ? recorder : nullptr) {
    if (recorder_ == nullptr) return;
    start_ = std::chrono::steady_clock::now();
    id_ = recorder_->started(action, session, caller);
}

void ActionAudit::finish(const RouteResult &result) {
    if (recorder_ == nullptr) return;
    recorder_->finished(id_, result, std::chrono::steady_clock::now() - start_, policy_, files_);
    recorder_ = nullptr;
}

ActionAudit::~ActionAudit() {
    if (recorder_ == nullptr) return;
    RouteResult none;
    none.http_status = 0;
    none.body = {{"outcome", "no answer"}};
    recorder_->finished(id_, none, std::chrono::steady_clock::now() - start_, policy_);
}

}  // namespace actionhost::host::audit
