// The host's half of the audit trail (docs/security.md, "The audit trail"): every action, as it starts
// and as it ends, sent as one JSON record per message on the descriptor the sandbox's supervisor gave
// the host (ACTIONHOST_AUDIT_FD, runtimes/sandbox/init/audit_sink.hpp). The supervisor, outside the
// sandbox, chains and stores them; the host keeps nothing and never reads anything back.
//
// A "started" record (before the action runs: a host that crashes mid-action leaves a start without an
// end) holds the action's type and arguments (a string longer than kMaxArgText is cut, with its size
// and SHA-256) and who sent it; a "finished" record the policy's decision (made after the start: a
// confirmation may wait), the HTTP status, the observation's type, exit code and size, and the duration. Cost per action: two serialisations and two
// send() calls, no fsync (the supervisor's file is out of the host's reach either way).
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
    void finished(uint64_t id, const RouteResult &result, std::chrono::steady_clock::duration took, const nlohmann::json &policy);
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
    void finish(const RouteResult &result);

  private:
    AuditRecorder *recorder_;
    nlohmann::json policy_ = {{"decision", "not asked"}};
    uint64_t id_ = 0;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace audit
}  // namespace actionhost::host
