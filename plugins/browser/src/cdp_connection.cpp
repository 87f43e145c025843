#include "cdp_connection.hpp"

#include <Poco/Buffer.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/WebSocket.h>

#include <cstdio>
#include <cstdlib>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/log.hpp"

namespace actionhost::browser {
namespace {
// Events are kept for waiters that marked a point before them; older ones are dropped so a chatty
// page cannot grow memory without bound.
constexpr size_t kMaxBufferedEvents = 20000;
// A full-page screenshot of a big page is tens of MB in base64.
constexpr int kMaxMessageBytes = 256 * 1024 * 1024;
}  // namespace

CdpConnection::CdpConnection(int port, const std::string &path, std::chrono::milliseconds connect_timeout) {
    http_ = std::make_unique<Poco::Net::HTTPClientSession>("127.0.0.1", static_cast<Poco::UInt16>(port));
    http_->setTimeout(Poco::Timespan(static_cast<long>(connect_timeout.count()) * 1000));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path, Poco::Net::HTTPMessage::HTTP_1_1);
    Poco::Net::HTTPResponse response;
    ws_ = std::make_unique<Poco::Net::WebSocket>(*http_, request, response);
    ws_->setMaxPayloadSize(kMaxMessageBytes);
    // The reader blocks in receive; close() unblocks it by shutting the socket down.
    ws_->setReceiveTimeout(Poco::Timespan(0));
    ws_->setNoDelay(true);
    reader_ = std::thread([this] { reader_loop(); });
}

CdpConnection::~CdpConnection() { close(); }

void CdpConnection::close() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!closed_) {
            closed_ = true;
            try {
                // shutdown(SHUT_RDWR) wakes the reader blocked in recv(); the fd stays valid until join.
                ws_->Poco::Net::StreamSocket::shutdown();
            } catch (...) {
            }
        }
    }
    cv_.notify_all();
    if (reader_.joinable() && reader_.get_id() != std::this_thread::get_id()) reader_.join();
    try {
        ws_->close();
    } catch (...) {
    }
}

bool CdpConnection::alive() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !closed_;
}

void CdpConnection::reader_loop() {
    Poco::Buffer<char> buffer(0);
    std::string message;
    while (true) {
        int flags = 0;
        int n = 0;
        try {
            buffer.resize(0);
            n = ws_->receiveFrame(buffer, flags);
        } catch (...) {
            break;
        }
        const int opcode = flags & Poco::Net::WebSocket::FRAME_OP_BITMASK;
        if (n == 0 && flags == 0) break;  // peer closed the connection
        if (opcode == Poco::Net::WebSocket::FRAME_OP_CLOSE) break;
        if (opcode == Poco::Net::WebSocket::FRAME_OP_PING) {
            try {
                std::lock_guard<std::mutex> lock(send_mu_);
                ws_->sendFrame(buffer.begin(), n, static_cast<int>(Poco::Net::WebSocket::FRAME_FLAG_FIN) | static_cast<int>(Poco::Net::WebSocket::FRAME_OP_PONG));
            } catch (...) {
            }
            continue;
        }
        if (opcode == Poco::Net::WebSocket::FRAME_OP_PONG) continue;
        message.append(buffer.begin(), static_cast<size_t>(n));
        if ((flags & Poco::Net::WebSocket::FRAME_FLAG_FIN) == 0) continue;  // more fragments follow
        auto parsed = common::parse_json(message);
        message.clear();
        if (!parsed || !parsed.value().is_object()) continue;
        nlohmann::json &msg = parsed.value();
        std::lock_guard<std::mutex> lock(mu_);
        if (msg.contains("id") && msg["id"].is_number_unsigned()) {
            auto it = pending_.find(msg["id"].get<uint64_t>());
            if (it != pending_.end()) it->second = std::move(msg);
        } else if (msg.contains("method") && msg["method"].is_string()) {
            CdpEvent ev;
            ev.seq = ++event_seq_;
            ev.method = msg["method"].get<std::string>();
            if (msg.contains("sessionId") && msg["sessionId"].is_string()) ev.session_id = msg["sessionId"].get<std::string>();
            if (msg.contains("params")) ev.params = std::move(msg["params"]);
            events_.push_back(std::move(ev));
            if (events_.size() > kMaxBufferedEvents) events_.pop_front();
        }
        cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
}

nlohmann::json CdpConnection::call(const std::string &method, const nlohmann::json &params,
                                   const std::string &session_id, Clock::time_point deadline) {
    // ACTIONHOST_CDP_TRACE=1 logs every command and its round-trip time to stderr (debugging aid), in the
    // host's line format (LOG_JSON honoured).
    static const bool trace = std::getenv("ACTIONHOST_CDP_TRACE") != nullptr;
    const auto started = Clock::now();
    struct TraceOnExit {
        bool on;
        const std::string &method;
        Clock::time_point t0;
        ~TraceOnExit() {
            if (!on) return;
            char line[160];
            std::snprintf(line, sizeof line, "%-40s %8.1f ms", method.c_str(),
                          std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            common::log_to_stderr(common::LogLevel::Info, "cdp", line, common::log_format_from_environment());
        }
    } trace_on_exit{trace, method, started};
    uint64_t id;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (closed_) throw CdpClosed("the browser connection is closed");
        id = next_id_++;
        pending_[id] = std::nullopt;
    }
    nlohmann::json msg = {{"id", id}, {"method", method}, {"params", params.is_null() ? nlohmann::json::object() : params}};
    if (!session_id.empty()) msg["sessionId"] = session_id;
    std::string text = common::dump_json(msg);
    try {
        std::lock_guard<std::mutex> lock(send_mu_);
        ws_->sendFrame(text.data(), static_cast<int>(text.size()), Poco::Net::WebSocket::FRAME_TEXT);
    } catch (const std::exception &e) {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.erase(id);
        throw CdpClosed(std::string("cannot send to the browser: ") + e.what());
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return closed_ || pending_[id].has_value(); });
    std::optional<nlohmann::json> answer = std::move(pending_[id]);
    pending_.erase(id);
    if (!answer) {
        if (closed_) throw CdpClosed("the browser connection closed during " + method);
        throw CdpTimeout(method + " timed out");
    }
    if (answer->contains("error")) {
        const auto &err = (*answer)["error"];
        std::string text_msg = err.is_object() && err.contains("message") && err["message"].is_string()
                                   ? err["message"].get<std::string>()
                                   : common::dump_json(err);
        throw CdpError(text_msg);
    }
    return answer->contains("result") ? (*answer)["result"] : nlohmann::json::object();
}

uint64_t CdpConnection::mark() const {
    std::lock_guard<std::mutex> lock(mu_);
    return event_seq_;
}

std::optional<CdpEvent> CdpConnection::wait_event(uint64_t after, const std::function<bool(const CdpEvent &)> &pred,
                                                  Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    uint64_t scanned = after;
    while (true) {
        for (const auto &ev : events_) {
            if (ev.seq <= scanned) continue;
            if (pred(ev)) return ev;
        }
        if (!events_.empty()) scanned = std::max(scanned, events_.back().seq);
        if (closed_) return std::nullopt;
        if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
            for (const auto &ev : events_)
                if (ev.seq > scanned && pred(ev)) return ev;
            return std::nullopt;
        }
    }
}

std::vector<CdpEvent> CdpConnection::events_since(uint64_t after, const std::function<bool(const CdpEvent &)> &pred) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<CdpEvent> out;
    for (const auto &ev : events_)
        if (ev.seq > after && pred(ev)) out.push_back(ev);
    return out;
}

}  // namespace actionhost::browser
