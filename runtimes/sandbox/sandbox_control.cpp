#include "sandbox_control.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <actionhost/common/json_io.hpp>

#include <chrono>
#include <stdexcept>

namespace actionhost::sandbox_runtime {

namespace asio = boost::asio;
using Local = asio::local::stream_protocol;
using nlohmann::json;

std::string control_socket_path(const std::string &run_dir) { return run_dir + "/control.sock"; }
std::string ports_socket_path(const std::string &run_dir) { return run_dir + "/ports.sock"; }

json control_request(const std::string &run_dir, const json &request, double timeout_s) {
    asio::io_context io;
    Local::socket socket(io);
    boost::system::error_code ec;
    socket.connect(Local::endpoint(control_socket_path(run_dir)), ec);
    if (ec)
        throw std::runtime_error("the sandbox cannot be asked (" + ec.message() +
                                 "): it has ended, or it was started by a release without a control socket");
    const std::string line = common::dump_json(request) + "\n";
    asio::streambuf answer(64 * 1024);
    boost::system::error_code failure = asio::error::timed_out;
    asio::async_write(socket, asio::buffer(line), [&](const boost::system::error_code &e, size_t) {
        if (e) {
            failure = e;
            return;
        }
        asio::async_read_until(socket, answer, '\n', [&](const boost::system::error_code &r, size_t) { failure = r; });
    });
    io.run_for(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s)));
    if (failure) throw std::runtime_error("the sandbox did not answer its control request: " + failure.message());
    const std::string text(asio::buffers_begin(answer.data()), asio::buffers_end(answer.data()));
    auto parsed = common::parse_json(text);
    if (!parsed || !parsed.value().is_object()) throw std::runtime_error("the sandbox answered its control request with something not JSON");
    const json &reply = parsed.value();
    if (!reply.value("ok", false)) {
        const std::string why = reply.value("error", std::string("the sandbox refused the request"));
        if (reply.value("invalid", false)) throw std::invalid_argument(why);
        throw std::runtime_error(why);
    }
    return reply;
}

}  // namespace actionhost::sandbox_runtime
