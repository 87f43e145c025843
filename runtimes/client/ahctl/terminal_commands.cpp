#include <actionhost/common/shell_quote.hpp>
#include <actionhost/common/text.hpp>
#include "terminal_commands.hpp"

#include <poll.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <nlohmann/json.hpp>

#include <actionhost/client/http_transport.hpp>
#include <actionhost/client/wire_client.hpp>

#include <deque>
#include <iostream>
#include <thread>

#include "local_terminal.hpp"
#include <actionhost/common/random.hpp>
#include <actionhost/common/json_write.hpp>

namespace ahctl {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using asio::ip::tcp;
using json = nlohmann::json;

std::string fresh_name() { return "shell-" + actionhost::common::random_hex(3); }

std::string percent_encoded(const std::string &s) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
        else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out;
}

// The conversation: the WebSocket on an event loop of this thread; stdin read by a thread of its own
// (a terminal's descriptor is shared with the parent shell: made non-blocking for an event loop, it
// would stay so for the shell after we exit).
template <class Socket>
class Session {
  public:
    // `detach_hint`: what to tell after Ctrl-P Ctrl-Q (how to come back, or that there is no coming back).
    Session(websocket::stream<Socket> &ws, asio::io_context &io, std::string detach_hint)
        : ws_(ws), io_(io), winch_(io, SIGWINCH), detach_hint_(std::move(detach_hint)) {}

    int run() {
        RawTerminal raw(0);
        if (::pipe(stop_) != 0) throw std::runtime_error("pipe failed");
        watch_size();
        read();
        std::thread keys([this] { read_keys(); });
        io_.run();
        (void)!::write(stop_[1], "x", 1);
        keys.join();
        ::close(stop_[0]);
        ::close(stop_[1]);
        raw.restore();
        if (detached_) std::cerr << "[ahctl] detached from terminal " << name_ << "; " << detach_hint_ << "\n";
        else if (exit_code_ < 0 && !error_.empty()) std::cerr << "[ahctl] " << actionhost::common::printable_for_terminal(error_) << "\n";
        if (detached_) return kOk;
        return exit_code_ < 0 ? kWire : exit_code_;
    }

  private:
    void watch_size() {
        winch_.async_wait([this](const boost::system::error_code &ec, int) {
            if (ec) return;
            send_size();
            watch_size();
        });
    }
    void send_size() {
        if (auto size = terminal_size(1))
            send(actionhost::common::dump_json(json{{"type", "resize"}, {"rows", size->first}, {"cols", size->second}}), false);
    }

    void read() {
        ws_.async_read(in_, [this](const boost::system::error_code &ec, size_t) {
            if (ec) {
                if (ec != websocket::error::closed && exit_code_ < 0 && !detached_) error_ = "the terminal connection ended: " + ec.message();
                return stop();
            }
            std::string data = beast::buffers_to_string(in_.data());
            in_.consume(in_.size());
            if (ws_.got_binary()) write_out(data);
            else control(data);
            read();
        });
    }

    void control(const std::string &text) {
        json m = json::parse(text, nullptr, false);
        if (!m.is_object()) return;
        const std::string type = m.value("type", "");
        if (type == "attached") {
            name_ = m.value("name", name_);
            send_size();
        } else if (type == "exit") {
            exit_code_ = m.value("code", -1);
            if (exit_code_ < 0) exit_code_ = 1;
        } else if (type == "detached") {
            detached_ = true;
        } else if (type == "error") {
            std::string line = "\r\n[ahctl] " + m.value("message", std::string("error")) + "\r\n";
            write_out(line);
        }
    }

    static void write_out(const std::string &data) {
        std::string_view rest = data;
        while (!rest.empty()) {
            const ssize_t n = ::write(1, rest.data(), rest.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            rest.remove_prefix(static_cast<size_t>(n));
        }
    }

    void send(std::string data, bool binary) {
        if (stopped_) return;
        queue_.emplace_back(std::move(data), binary);
        if (queue_.size() == 1) write_next();
    }
    void write_next() {
        if (queue_.empty()) return;
        ws_.binary(queue_.front().second);
        ws_.async_write(asio::buffer(queue_.front().first), [this](const boost::system::error_code &ec, size_t) {
            if (ec) return stop();
            queue_.pop_front();
            write_next();
        });
    }

    void stop() {
        if (stopped_) return;
        stopped_ = true;
        winch_.cancel();
        boost::system::error_code ignored;
        ws_.next_layer().shutdown(Socket::shutdown_both, ignored);
        ws_.next_layer().close(ignored);
    }

    // The keys thread: blocking reads of stdin, each posted to the loop as input.
    void read_keys() {
        DetachKeys keys;
        char buf[4096];
        for (;;) {
            pollfd p[2] = {{0, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            if (::poll(p, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (p[1].revents) return;
            const ssize_t n = ::read(0, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {  // our terminal is gone: leave the remote one running, as a detach does
                asio::post(io_, [this] { send(R"({"type":"detach"})", false); });
                return;
            }
            DetachKeys::Result r = keys.feed(std::string_view(buf, static_cast<size_t>(n)));
            asio::post(io_, [this, r] {
                if (!r.forward.empty()) send(r.forward, true);
                if (r.detach) send(R"({"type":"detach"})", false);
            });
            if (r.detach) return;
        }
    }

    websocket::stream<Socket> &ws_;
    asio::io_context &io_;
    asio::signal_set winch_;
    beast::flat_buffer in_;
    std::deque<std::pair<std::string, bool>> queue_;
    int stop_[2] = {-1, -1};
    int exit_code_ = -1;
    bool detached_ = false, stopped_ = false;
    std::string name_, error_, detach_hint_;
};

// The WebSocket handshake (the key in its header), then the session. The host's refusal before the
// upgrade is JSON {"detail": ...}: no such terminal, too many, a bad key.
template <class Socket>
int converse(websocket::stream<Socket> &ws, asio::io_context &io, const std::string &host, const std::string &target,
             const std::string &key, const std::string &name, const std::string &detach_hint) {
    ws.set_option(websocket::stream_base::decorator([key](websocket::request_type &req) {
        if (!key.empty()) req.set("X-Session-API-Key", key);
    }));
    ws.read_message_max(16u << 20);
    websocket::response_type answer;
    boost::system::error_code ec;
    // Asynchronous: Beast 1.74's synchronous handshake leaves `answer` empty when the host declines.
    ws.async_handshake(answer, host, target, [&ec](const boost::system::error_code &e) { ec = e; });
    io.run();
    io.restart();
    if (!ec) return Session<Socket>(ws, io, detach_hint).run();
    json body = json::parse(answer.body(), nullptr, false);
    const std::string why = body.is_object() && body.contains("detail") && body["detail"].is_string() ? body["detail"].get<std::string>() : ec.message();
    std::cerr << "[ahctl] cannot open terminal " << name << ": " << why << "\n";
    return answer.result_int() == 404 ? kActionFailed : kWire;
}

}  // namespace

bool wants_terminal() { return ::isatty(0) && ::isatty(1); }

int cmd_terminal(const Options &o, OpenRuntime open, bool attach_only) {
    if (attach_only && o.args.size() != 1) throw UsageError("attach needs the NAME of a running terminal");
    if (o.args.size() > 1) throw UsageError("shell takes at most one NAME");
    if (attach_only && !::isatty(0)) throw UsageError("attach needs a terminal on stdin");
    const std::string name = o.args.empty() ? fresh_name() : o.args[0];
    auto rt = open(o, false);
    actionhost::client::WireClient &wire = rt->wire();
    actionhost::client::Endpoint endpoint;
    try {
        endpoint = actionhost::client::parse_base_url(wire.base_url());
    } catch (const std::exception &) {
    }
    if (endpoint.tls || endpoint.in_process || endpoint.host.empty()) {
        std::cerr << "[ahctl] the " << rt->runtime_name() << " runtime's host (" << wire.base_url()
                  << ") is not reachable over plain HTTP or a socket file: no terminal; use a piped `ahctl shell` instead\n";
        rt->close();
        return kUsage;
    }
    const auto size = terminal_size(1).value_or(std::make_pair<unsigned short, unsigned short>(24, 80));
    const std::string target = endpoint.base_path + "/terminal?name=" + percent_encoded(name) + "&mode=" +
                               (attach_only ? "attach" : "any") + "&rows=" + std::to_string(size.first) +
                               "&cols=" + std::to_string(size.second);
    // Coming back needs the sandbox to outlive this command: a kept-alive one (-s SID, --keep), named by
    // its session; one this command started ends with it, and the terminal too.
    const bool kept = o.session.has_value() || o.keep;
    const std::string detach_hint =
        kept ? "`ahctl -s " + actionhost::common::shell_word(rt->session_id()) + " attach " + actionhost::common::shell_word(name) + "` re-attaches"
             : "the sandbox ends with this command, and the terminal with it (start one with `ahctl start`, then `ahctl -s SID shell`, to come back)";
    int code = kWire;
    try {
        asio::io_context io;
        if (endpoint.unix_socket) {  // the sandbox runtime's host listens on a socket file
            websocket::stream<asio::local::stream_protocol::socket> ws(io);
            ws.next_layer().connect(asio::local::stream_protocol::endpoint(endpoint.host));
            code = converse(ws, io, "localhost", target, wire.session_api_key(), name, detach_hint);
        } else {
            websocket::stream<tcp::socket> ws(io);
            tcp::resolver resolver(io);
            asio::connect(ws.next_layer(), resolver.resolve(endpoint.host, std::to_string(endpoint.port)));
            code = converse(ws, io, endpoint.host + ":" + std::to_string(endpoint.port), target, wire.session_api_key(), name, detach_hint);
        }
    } catch (const std::exception &e) {
        std::cerr << "[ahctl] cannot reach the terminal of " << wire.base_url() << ": " << e.what() << "\n";
    }
    rt->close();
    return code;
}

}  // namespace ahctl
