// A session's audit trail, as the client library reads it (docs/security.md, "The audit trail"):
// every action of a `sandbox` session, written by its supervisor outside the sandbox into
// <state dir>/audit/<session>/ as a hash chain. Reading needs only the files: the sandbox may be gone.
//
// Only the `sandbox` backend keeps a trail; for a session of another backend the directory does not
// exist and read_audit_log throws RuntimeError saying so.
//
// Threads: any; the functions share nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace actionhost::client {

struct AuditLogEntry {
    uint64_t seq = 0;
    double time = 0;         // the supervisor's clock, seconds since the epoch
    std::string kind;        // "action" (the host's record), "sandbox" (the supervisor's own), "rotation", "rejected"
    std::string hash, prev;  // this entry's SHA-256 and the one before it
    nlohmann::json record;
    nlohmann::json to_json() const;  // {"seq","time","kind","hash","prev","record"}
};

struct AuditVerification {
    bool ok = false;
    std::string problem;  // the first break: its file, line and seq and what is wrong ("" when ok)
    uint64_t entries = 0, first_seq = 0, last_seq = 0;
    uint64_t dropped_through_seq = 0;  // entries up to here were dropped by declared rotation (0: none)
    std::string last_hash;
};

// <state_dir>/audit/<session_id> (the state dir of StateStore::default_dir).
std::string audit_log_dir(const std::string &state_dir, const std::string &session_id);

// Every entry kept, oldest first, not checked. Throws RuntimeError when there is no trail.
std::vector<AuditLogEntry> read_audit_log(const std::string &dir);

// Checks the chain: every hash and link, no gap in seq or segments, a dropped beginning declared by
// rotation, the head naming the last entry.
AuditVerification verify_audit_log(const std::string &dir);

// Entries as they are appended (`ahctl log -f`): each poll() hands over what was written since.
class AuditLogFollower {
  public:
    explicit AuditLogFollower(const std::string &dir, uint64_t after_seq = 0);
    ~AuditLogFollower();
    // The number of entries handed over; throws RuntimeError on a line that is not an entry.
    size_t poll(const std::function<void(const AuditLogEntry &)> &on_entry);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace actionhost::client
