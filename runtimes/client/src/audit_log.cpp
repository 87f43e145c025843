#include "actionhost/client/audit_log.hpp"

#include <actionhost/client/errors.hpp>
#include <actionhost/common/audit_chain.hpp>

#include <filesystem>

namespace actionhost::client {
namespace chain = actionhost::common::audit;

namespace {

AuditLogEntry entry_of(const chain::Entry &e) { return AuditLogEntry{e.seq, e.time, e.kind, e.hash, e.prev, e.record}; }

void require_trail(const std::string &dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw RuntimeError("no audit trail at " + dir + ": only sessions of the sandbox backend keep one (sandbox.audit)");
}

}  // namespace

nlohmann::json AuditLogEntry::to_json() const {
    return {{"seq", seq}, {"time", time}, {"kind", kind}, {"hash", hash}, {"prev", prev}, {"record", record}};
}

std::string audit_log_dir(const std::string &state_dir, const std::string &session_id) { return chain::trail_dir(state_dir, session_id); }

std::vector<AuditLogEntry> read_audit_log(const std::string &dir) {
    require_trail(dir);
    auto entries = chain::read_entries(dir);
    if (!entries) throw RuntimeError(entries.error().message);
    std::vector<AuditLogEntry> out;
    out.reserve(entries.value().size());
    for (const auto &e : entries.value()) out.push_back(entry_of(e));
    return out;
}

AuditVerification verify_audit_log(const std::string &dir) {
    AuditVerification v;
    auto checked = chain::verify(dir);
    if (!checked) {
        v.problem = checked.error().message;
        return v;
    }
    const chain::Summary &s = checked.value();
    v.ok = true;
    v.entries = s.entries;
    v.first_seq = s.first_seq;
    v.last_seq = s.last_seq;
    v.dropped_through_seq = s.dropped_through_seq;
    v.last_hash = s.last_hash;
    return v;
}

struct AuditLogFollower::Impl {
    chain::Follower follower;
};

AuditLogFollower::AuditLogFollower(const std::string &dir, uint64_t after_seq)
    : impl_(std::make_unique<Impl>(Impl{chain::Follower(dir, after_seq)})) {}

AuditLogFollower::~AuditLogFollower() = default;

size_t AuditLogFollower::poll(const std::function<void(const AuditLogEntry &)> &on_entry) {
    auto n = impl_->follower.poll([&](const chain::Entry &e) { on_entry(entry_of(e)); });
    if (!n) throw RuntimeError(n.error().message);
    return n.value();
}

}  // namespace actionhost::client
