// A WebSocket client of the host's GET /terminal for tests: Boost.Beast, blocking calls, every wait
// bounded in time.
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

namespace actionhost::testing {

class TerminalClient {
  public:
    // Connects and upgrades; `status` is 101 on success, else the host's refusal (body in `refusal`).
    TerminalClient(int port, const std::string &target, const std::string &key, const std::string &origin = "",
                   const std::string &cookie = "")
        : ws_(io_) {
        namespace websocket = boost::beast::websocket;
        boost::asio::ip::tcp::resolver resolver(io_);
        boost::asio::connect(ws_.next_layer(), resolver.resolve("127.0.0.1", std::to_string(port)));
        ws_.set_option(websocket::stream_base::decorator([key, origin, cookie](websocket::request_type &req) {
            if (!key.empty()) req.set("X-Session-API-Key", key);
            if (!cookie.empty()) req.set("Cookie", cookie);
            if (!origin.empty()) req.set("Origin", origin);
        }));
        websocket::response_type answer;
        boost::system::error_code ec;
        // Asynchronous: Beast 1.74's synchronous handshake leaves `answer` empty when the host declines.
        ws_.async_handshake(answer, "127.0.0.1:" + std::to_string(port), target, [&ec](const boost::system::error_code &e) { ec = e; });
        io_.run_for(std::chrono::seconds(20));
        io_.restart();
        status = ec ? answer.result_int() : 101;
        refusal = answer.body() + (ec ? " (" + ec.message() + ")" : "");
    }

    void type(const std::string &bytes) {
        ws_.binary(true);
        ws_.write(boost::asio::buffer(bytes));
    }
    void control(const nlohmann::json &message) {
        ws_.binary(false);
        ws_.write(boost::asio::buffer(message.dump()));
    }
    // Reads until the terminal's output holds `needle` (after what earlier waits consumed) or a
    // control message of type `needle` arrives; false at the deadline or the connection's end.
    bool wait_for(const std::string &needle, double timeout_s = 20) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
        for (;;) {
            if (const size_t at = output.find(needle, from_); at != std::string::npos) {
                from_ = at + needle.size();
                return true;
            }
            for (size_t i = controls_seen_; i < controls.size(); ++i)
                if (controls[i].value("type", "") == needle) {
                    controls_seen_ = i + 1;
                    return true;
                }
            if (!read_one(deadline)) return false;
        }
    }
    // The first control message of `type` received so far (null if none).
    nlohmann::json control_of(const std::string &type) const {
        for (const auto &c : controls)
            if (c.value("type", "") == type) return c;
        return nullptr;
    }
    // Reads until the connection ends (true) or the deadline.
    bool wait_closed(double timeout_s = 20) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
        while (read_one(deadline)) {
        }
        return closed;
    }

    int status = 0;
    std::string refusal;
    std::string output;                     // every binary frame, in order
    std::vector<nlohmann::json> controls;  // every text frame
    bool closed = false;

  private:
    bool read_one(std::chrono::steady_clock::time_point deadline) {
        if (closed) return false;
        boost::beast::flat_buffer buffer;
        bool done = false;
        boost::system::error_code result;
        ws_.async_read(buffer, [&](const boost::system::error_code &ec, size_t) {
            done = true;
            result = ec;
        });
        io_.restart();
        io_.run_until(deadline);
        if (!done) {  // the deadline: abandon the read (the connection is of no further use)
            boost::system::error_code ignored;
            ws_.next_layer().close(ignored);
            io_.restart();
            io_.run();
            return false;
        }
        if (result) {
            closed = true;
            return false;
        }
        const std::string data = boost::beast::buffers_to_string(buffer.data());
        if (ws_.got_binary()) output += data;
        else controls.push_back(nlohmann::json::parse(data, nullptr, false));
        return true;
    }

    boost::asio::io_context io_;
    boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws_;
    size_t from_ = 0, controls_seen_ = 0;
};

}  // namespace actionhost::testing
