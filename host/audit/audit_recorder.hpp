// The host's half of the audit trail (docs/security.md, "The audit trail"): every action, as it starts
// and as it ends, sent as one JSON record per message on the descriptor the sandbox's supervisor gave
// the host (ACTIONHOST_AUDIT_FD, runtimes/sandbox/init/audit_sink.hpp). The supervisor, outside the
// sandbox, chains and stores them; the host keeps nothing and never reads anything back.
//
// A "started" record (before the action runs: a host that crashes mid-action leaves a start without an
// end) holds the action's type and arguments (a string longer than kMaxArgText is cut, with its size
// and SHA-256) and who sent it; a "finished" record the policy's decision (made after the start: a
// confirmation may wait), the HTTP status, the observation's type, exit code and size, the duration, and
// the files it changed when its arguments name them (changed_files.hpp). Cost per action: two
// serialisations and two send() calls, no fsync (the supervisor's file is out of the host's reach either way).
// Files moved by POST /upload_file and GET /download_files, which are not actions, get one record each
// ("upload", "download": the path, the outcome, who asked).
//
// A record the channel cannot take within kSendTimeout (a supervisor that stopped reading) is counted
// and the count sent with the next one ("lost_before"), so a gap is never silent.
//
// Threads: any, concurrently (one send() per record; SOCK_SEQPACKET keeps records whole).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace actionhost::host {

struct RouteResult;

namespace audit {

inline constexpr size_t kMaxArgText = 1024;
inline constexpr std::chrono::seconds kSendTimeout{2};

// Who sent an action, as far as the host can know: the HTTP peer's address (for the sandbox backend
// the loopback: its relay), the request's X-Request-ID, and a fingerprint of the key it presented (the
// first 16 hex digits of its SHA-256; never the key).
struct Caller {
    std::string peer;
    std::string request_id;
};


// The action's arguments as recorded: long strings cut (their size and SHA-256 kept).
nlohmann::json summarise_action(const nlohmann::json &action);
// The first 16 hex digits of SHA-256(key), or "none" for no key.
std::string key_fingerprint(const std::string &key);

class AuditRecorder {
  public:
    // Takes `fd` (a connected SOCK_SEQPACKET socket) and marks it close-on-exec; -1: records nothing.
    AuditRecorder(int fd, const std::string &session_key);
    ~AuditRecorder();
    AuditRecorder(const AuditRecorder &) = delete;
    AuditRecorder &operator=(const AuditRecorder &) = delete;

    bool enabled() const { return fd_ >= 0; }
    uint64_t started(const nlohmann::json &action, const std::string &session, const Caller &caller);
    // `policy`: the policy stage's decision (policy_decision.hpp's to_json), {"decision": "allow",
    // "rule": "no policy"} on a host without a stage, {"decision": "not asked"} for an action refused
    // before the stage (an invalid action, a stopping host).
    // `files`: what the action changed (recorded only when it answered without an error observation).
    void finished(uint64_t id, const RouteResult &result, std::chrono::steady_clock::duration took, const nlohmann::json &policy,
                  const std::vector<std::string> &files = {});
    // A file transfer: `event` "upload" or "download", `details` its path(s) and outcome.
    void transfer(const std::string &event, nlohmann::json details, const Caller &caller);
    uint64_t lost() const { return lost_.load(); }

  private:
    void send_record(nlohmann::json record);
    int fd_;
    std::string key_fingerprint_;
    std::atomic<uint64_t> next_id_{1};
    std::atomic<uint64_t> lost_{0};
};

// One action's records: "started" when made, "finished" by finish(); a scope that ends without
// finish() (an exception) records "finished" with "outcome": "no answer".
class ActionAudit {
  public:
    ActionAudit(AuditRecorder *recorder, const nlohmann::json &action, const std::string &session, const Caller &caller);
    ~ActionAudit();
    ActionAudit(const ActionAudit &) = delete;
    ActionAudit &operator=(const ActionAudit &) = delete;
    bool recording() const { return recorder_ != nullptr; }
    // The policy stage's decision, once made (before finish()).
    void set_policy(nlohmann::json decision) { policy_ = std::move(decision); }
    // The files the action changes if it succeeds (changed_files.hpp), once its arguments are valid.
    void set_files(std::vector<std::string> files) { files_ = std::move(files); }
    void finish(const RouteResult &result);

  private:
    AuditRecorder *recorder_;
    nlohmann::json policy_ = {{"decision", "not asked"}};
    std::vector<std::string> files_;
    uint64_t id_ = 0;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace audit
}  // namespace actionhost::host
