#include "audit_sink.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <vector>

#include <actionhost/common/json_io.hpp>

namespace sandbox {

double audit_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

AuditEntry audit_entry_of(std::string_view message, size_t real_size) {
    auto rejected = [&](const std::string &why) {
        return AuditEntry{"rejected", {{"bytes", real_size}, {"why", why}}};
    };
    if (real_size > kMaxRecordBytes || real_size > message.size()) return rejected("larger than " + std::to_string(kMaxRecordBytes) + " bytes");
    auto parsed = actionhost::common::parse_json(message);
    if (!parsed || !parsed.value().is_object()) return rejected("not a JSON object");
    const nlohmann::json &event = parsed.value().value("event", nlohmann::json());
    if (!event.is_string() || (event != "started" && event != "finished" && event != "upload" && event != "download"))
        return rejected("\"event\" is not \"started\", \"finished\", \"upload\" or \"download\"");
    return AuditEntry{"action", std::move(parsed).value()};
}

AuditSink::AuditSink(boost::asio::io_context &io, int read_fd, actionhost::common::audit::Writer &writer)
    : socket_(io, read_fd), writer_(writer), buffer_(kMaxRecordBytes + 1) {
    wait();
}

void AuditSink::wait() {
    socket_.async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code &ec) {
        if (!ec) drain();
    });
}

void AuditSink::append(const std::string &kind, const nlohmann::json &record) {
    if (auto wrote = writer_.append(kind, record, audit_now()); !wrote && !failed_) {
        failed_ = true;
        std::fprintf(stderr, "ah-sandbox-init: warning: %s; the sandbox's audit trail stops here\n", wrote.error().message.c_str());
    }
}

void AuditSink::drain() {
    // At most 64 records a wake-up, so a flood of them never starves the loop's other work.
    for (int i = 0; i < 64; ++i) {
        const ssize_t n = ::recv(socket_.native_handle(), buffer_.data(), buffer_.size(), MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return wait();
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {  // the host's end closed: the host ended (or crashed), nothing more can come
            append("sandbox", {{"event", "host_channel_closed"}, {"note", "the host's end of the audit channel closed (the host ended)"}});
            socket_.close();
            return;
        }
        const size_t size = static_cast<size_t>(n);
        const AuditEntry entry = audit_entry_of(std::string_view(buffer_.data(), std::min(size, buffer_.size())), size);
        append(entry.kind, entry.record);
    }
    wait();
}

}  // namespace sandbox
