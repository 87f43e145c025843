#include "http/terminal_api.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <actionhost/common/http/websocket.hpp>
#include <actionhost/common/json_io.hpp>

#include <deque>

namespace actionhost::host {
namespace {

namespace asio = boost::asio;
namespace websocket = boost::beast::websocket;
using common::http::WebSocket;
using common::http::query_parameter;

// Output waiting for a slow client past this is not queued further: the client is dropped (it may
// re-attach and get the scrollback), so one stalled viewer never holds the host's memory.
constexpr size_t kMaxQueuedBytes = 4u << 20;

std::optional<unsigned short> dimension(const std::string &query, const char *name, unsigned short fallback) {
    const auto text = query_parameter(query, name);
    if (!text || text->empty()) return fallback;
    if (text->size() > 4 || text->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const int n = std::stoi(*text);
    if (n < 1 || n > 1000) return std::nullopt;
    return static_cast<unsigned short>(n);
}

// One client's conversation, all of it on the handler's thread (the WebSocket's own event loop), except
// the session's callbacks, which only post to that loop.
class Conversation : public std::enable_shared_from_this<Conversation> {
  public:
    Conversation(WebSocket &ws, std::shared_ptr<TerminalSession> session) : ws_(ws), session_(std::move(session)) {}

    void run(bool created) {
        auto self = shared_from_this();
        client_ = std::make_shared<TerminalSession::Client>();
        // The session's reader thread calls these with its lock held: post and return. A weak pointer, as
        // the client outlives nothing: detach() below runs before this object and the loop go.
        std::weak_ptr<Conversation> weak = self;
        client_->output = [weak, &io = ws_.io](std::string_view data) {
            asio::post(io, [weak, text = std::string(data)]() mutable {
                if (auto c = weak.lock()) c->send(std::move(text), true);
            });
        };
        client_->ended = [weak, &io = ws_.io](int code) {
            asio::post(io, [weak, code] {
                if (auto c = weak.lock()) c->finish({{"type", "exit"}, {"code", code}});
            });
        };
        send(actionhost::common::dump_json(nlohmann::json{{"type", "attached"}, {"name", session_->name()}, {"created", created}, {"pid", session_->pid()}}), false);
        std::string scrollback = session_->attach(client_);
        if (!scrollback.empty()) send(std::move(scrollback), true);
        read();
        ws_.io.run();
        session_->detach(client_);
    }

  private:
    void read() {
        ws_.stream.async_read(in_, [self = shared_from_this()](const boost::system::error_code &ec, size_t) {
            if (ec) return self->stop();
            const bool binary = self->ws_.stream.got_binary();
            std::string message = boost::beast::buffers_to_string(self->in_.data());
            self->in_.consume(self->in_.size());
            if (binary) {
                if (!self->session_->write_input(message)) self->send(R"({"type":"error","message":"the terminal takes no input now"})", false);
            } else {
                self->control(message);
            }
            if (!self->closing_) self->read();
        });
    }

    void control(const std::string &text) {
        const auto parsed = common::parse_json(text);
        const nlohmann::json *m = parsed ? &parsed.value() : nullptr;
        const std::string type = m && m->is_object() ? m->value("type", "") : "";
        if (type == "resize") {
            const auto rows = m->value("rows", 0), cols = m->value("cols", 0);
            if (rows < 1 || rows > 1000 || cols < 1 || cols > 1000)
                return send(R"({"type":"error","message":"resize needs rows and cols from 1 to 1000"})", false);
            // The first size a client gives repaints a full-screen program it attached to.
            session_->resize(static_cast<unsigned short>(rows), static_cast<unsigned short>(cols), !sized_);
            sized_ = true;
            return;
        }
        if (type == "detach") return finish({{"type", "detached"}, {"name", session_->name()}});
        send(actionhost::common::dump_json(nlohmann::json{{"type", "error"}, {"message", "unknown control message (expected resize or detach)"}}), false);
    }

    // Queues a frame; one write is under way at a time.
    void send(std::string data, bool binary) {
        if (closing_ && !final_) return;
        queued_bytes_ += data.size();
        if (queued_bytes_ > kMaxQueuedBytes) return stop();
        queue_.push_back({std::move(data), binary});
        if (queue_.size() == 1) write_next();
    }

    void write_next() {
        if (queue_.empty()) {
            if (closing_) close();
            return;
        }
        ws_.stream.binary(queue_.front().second);
        ws_.stream.async_write(asio::buffer(queue_.front().first), [self = shared_from_this()](const boost::system::error_code &ec, size_t) {
            if (ec) return self->stop();
            self->queued_bytes_ -= self->queue_.front().first.size();
            self->queue_.pop_front();
            self->write_next();
        });
    }

    // The last message, then a normal close handshake.
    void finish(const nlohmann::json &last) {
        if (closing_) return;
        final_ = true;
        send(actionhost::common::dump_json(last), false);
        final_ = false;
        closing_ = true;
        if (queue_.empty()) close();
    }

    void close() {
        if (close_started_) return;
        close_started_ = true;
        ws_.stream.async_close(websocket::close_code::normal, [self = shared_from_this()](const boost::system::error_code &) { self->stop(); });
    }

    // Ends the conversation at once: whatever is pending fails, the loop runs out of work.
    void stop() {
        closing_ = true;
        boost::system::error_code ignored;
        ws_.stream.next_layer().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
        ws_.stream.next_layer().close(ignored);
        // Beast's idle-ping timer would keep the loop (and this client attached) up to idle_timeout more.
        ws_.io.stop();
    }

    WebSocket &ws_;
    std::shared_ptr<TerminalSession> session_;
    std::shared_ptr<TerminalSession::Client> client_;
    boost::beast::flat_buffer in_;
    std::deque<std::pair<std::string, bool>> queue_;
    size_t queued_bytes_ = 0;
    bool closing_ = false, final_ = false, close_started_ = false, sized_ = false;
};

}  // namespace

void serve_terminal(TerminalRegistry &terminals, Request &req, Response &resp, const std::string &query,
                    const std::function<void(const std::string &)> &log) {
    const std::string name = query_parameter(query, "name").value_or("default");
    if (!TerminalRegistry::valid_name(name)) return send_detail(resp, 422, "name must be 1 to 64 letters, digits, '-', '_' or '.'");
    const std::string mode_text = query_parameter(query, "mode").value_or("any");
    OpenMode mode;
    if (mode_text == "any") mode = OpenMode::Any;
    else if (mode_text == "create") mode = OpenMode::Create;
    else if (mode_text == "attach") mode = OpenMode::Attach;
    else return send_detail(resp, 422, "mode must be any, create or attach");
    const auto rows = dimension(query, "rows", 24), cols = dimension(query, "cols", 80);
    if (!rows || !cols) return send_detail(resp, 422, "rows and cols must be whole numbers from 1 to 1000");
    if (req.header("Upgrade").empty()) return send_detail(resp, 426, "GET /terminal is a WebSocket: send an Upgrade: websocket request");

    TerminalRegistry::Opened opened = terminals.open(name, mode, *rows, *cols);
    if (!opened.session) return send_detail(resp, opened.status, opened.error);
    common::http::WebSocketLimits limits;
    std::unique_ptr<WebSocket> ws = resp.accept_websocket(limits);
    if (!ws) {
        if (opened.created) terminals.close(name);  // made for a client that never came
        if (!resp.sent()) send_detail(resp, 400, "Bad Request: not a valid WebSocket upgrade");
        return;
    }
    log("terminal '" + name + "' " + (opened.created ? "started" : "attached") + " from " + req.remote_address());
    std::make_shared<Conversation>(*ws, opened.session)->run(opened.created);
}

}  // namespace actionhost::host
