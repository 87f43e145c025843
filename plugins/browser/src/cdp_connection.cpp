#include "cdp_connection.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/log.hpp"

namespace actionhost::browser {
namespace {
// A full-page screenshot of a big page is tens of MB in base64; a message longer than this ends the
// connection rather than the host's memory.
constexpr size_t kMaxMessageBytes = 256 * 1024 * 1024;

// A write to a pipe whose reader is gone raises SIGPIPE, which ends a process that keeps the default
// disposition (a test or a program embedding this library; the host handles it): blocked on this thread
// around the write, and one raised by it taken back before the mask is restored.
class SigpipeBlocked {
  public:
    SigpipeBlocked() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~SigpipeBlocked() {
        sigset_t pending;
        sigpending(&pending);
        if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
            const timespec now{};
            sigtimedwait(&pipe_, nullptr, &now);
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeBlocked(const SigpipeBlocked &) = delete;
    SigpipeBlocked &operator=(const SigpipeBlocked &) = delete;

  private:
    sigset_t pipe_{}, old_{};
    bool was_pending_ = false;
};

int poll_ms_until(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 60000));
}
}  // namespace

CdpConnection::CdpConnection(common::io::UniqueFd to_browser, common::io::UniqueFd from_browser, size_t max_event_bytes)
    : to_browser_(std::move(to_browser)), from_browser_(std::move(from_browser)),
      wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), max_event_bytes_(max_event_bytes) {
    if (!to_browser_ || !from_browser_) throw CdpClosed("no pipes to the browser");
    if (!wake_) throw CdpClosed(std::string("eventfd: ") + std::strerror(errno));
    // Our write end never blocks a caller past its deadline; the reader waits in poll.
    for (int fd : {to_browser_.get(), from_browser_.get()}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    reader_ = std::thread([this] { reader_loop(); });
}

CdpConnection::~CdpConnection() { close(); }

void CdpConnection::close() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
    }
    const uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof one);
    cv_.notify_all();
    if (reader_.joinable() && reader_.get_id() != std::this_thread::get_id()) reader_.join();
    // Writers hold send_mu_ while they use the write end.
    std::lock_guard<std::mutex> send_lock(send_mu_);
    to_browser_.reset();
}

bool CdpConnection::alive() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !closed_;
}

void CdpConnection::reader_loop() {
    std::string pending;  // bytes of a message whose NUL has not arrived yet
    std::vector<char> buffer(1 << 16);
    for (;;) {
        pollfd fds[2] = {{from_browser_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
        const int n = ::poll(fds, 2, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || (fds[1].revents & POLLIN) != 0) break;
        const ssize_t got = ::read(from_browser_.get(), buffer.data(), buffer.size());
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got <= 0) break;  // the browser closed its end (it exited)
        size_t start = 0;
        const std::string_view chunk(buffer.data(), static_cast<size_t>(got));
        for (size_t nul; (nul = chunk.find('\0', start)) != std::string_view::npos; start = nul + 1) {
            if (pending.empty()) {
                dispatch(chunk.substr(start, nul - start));
            } else {
                pending.append(chunk.substr(start, nul - start));
                dispatch(pending);
                pending.clear();
            }
        }
        pending.append(chunk.substr(start));
        if (pending.size() > kMaxMessageBytes) break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
}

void CdpConnection::dispatch(std::string_view text) {
    auto parsed = common::parse_json(text);
    if (!parsed || !parsed.value().is_object()) return;
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
        ev.bytes = text.size();
        event_bytes_ += ev.bytes;
        events_.push_back(std::move(ev));
        while (events_.size() > 1 && (events_.size() > kMaxBufferedEvents || event_bytes_ > max_event_bytes_)) {
            event_bytes_ -= events_.front().bytes;
            events_.pop_front();
        }
    }
    cv_.notify_all();
}

void CdpConnection::send_message(const std::string &text, Clock::time_point deadline) {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (!to_browser_) throw CdpClosed("the browser connection is closed");
    // The message and its NUL; a partly written message cannot be taken back, so a deadline that passes
    // midway ends the connection (the browser would read the next message as this one's tail).
    const char *data = text.c_str();
    const size_t size = text.size() + 1;
    const SigpipeBlocked no_sigpipe;
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::write(to_browser_.get(), data + done, size - done);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd out{to_browser_.get(), POLLOUT, 0};
            const int wait_ms = poll_ms_until(deadline);
            if (wait_ms > 0 && ::poll(&out, 1, wait_ms) >= 0 && (out.revents & (POLLERR | POLLHUP)) == 0) continue;
            if (done == 0 && wait_ms == 0) throw CdpTimeout("the browser does not read its commands");
        }
        const std::string why = n < 0 && errno != EAGAIN ? std::strerror(errno) : "it stopped reading";
        to_browser_.reset();
        {
            std::lock_guard<std::mutex> state(mu_);
            closed_ = true;
        }
        cv_.notify_all();
        throw CdpClosed("cannot send to the browser: " + why);
    }
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
    try {
        send_message(common::dump_json(msg), deadline);
    } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.erase(id);
        throw;
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
