// The audit trail's writer outside the sandbox (docs/security.md, "The audit trail"). ah-sandbox-init
// ("P") makes a SOCK_SEQPACKET socket pair before the namespaces exist; the host (the sandbox's main
// process) inherits one end as ACTIONHOST_AUDIT_FD and sends one JSON record per message; P keeps the
// other end here, on its event loop, and appends each record to the hash chain in the caller's state
// directory (common/audit_chain.hpp), a directory no mount of the sandbox shows.
//
// What P adds that the host cannot forge: the seq, the time (P's clock) and the chain. What it checks:
// a record is one JSON object of at most kMaxRecordBytes with "event" "started", "finished" (an action)
// or "upload", "download" (a file transfer); anything
// else is still written, as a "rejected" entry saying how big it was and why, so nothing sent on the
// channel goes unseen. The channel closing (the host ended or crashed) is an entry too.
//
// Single-threaded: P's event loop.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <actionhost/common/audit_chain.hpp>

#include <string>
#include <vector>

namespace sandbox {

inline constexpr size_t kMaxRecordBytes = 64 * 1024;

// What P makes of one message of the host's: the entry's kind and record.
struct AuditEntry {
    std::string kind;  // "action" or "rejected"
    nlohmann::json record;
};
AuditEntry audit_entry_of(std::string_view message, size_t real_size);

// The time for an entry: P's clock, seconds since the epoch.
double audit_now();

class AuditSink {
  public:
    // Takes `read_fd` (P's end of the pair). `writer` outlives the sink.
    AuditSink(boost::asio::io_context &io, int read_fd, actionhost::common::audit::Writer &writer);

  private:
    void wait();
    void drain();
    void append(const std::string &kind, const nlohmann::json &record);
    boost::asio::posix::stream_descriptor socket_;
    actionhost::common::audit::Writer &writer_;
    std::vector<char> buffer_;  // one message; one byte more than allowed, so a larger one is seen
    bool failed_ = false;  // the chain could not be written: said once on stderr
};

}  // namespace sandbox
