#include "support/beast_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>

namespace actionhost::bench {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

struct BeastClient::Impl {
    boost::asio::io_context io;
    tcp::socket socket{io};
    boost::beast::flat_buffer buffer;
    std::string host;

    BeastAnswer exchange(http::request<http::string_body> &req) {
        req.set(http::field::host, host);
        req.keep_alive(true);
        req.prepare_payload();
        boost::system::error_code ec;
        http::write(socket, req, ec);
        if (ec) throw std::runtime_error("HTTP write: " + ec.message());
        http::response<http::string_body> res;
        http::read(socket, buffer, res, ec);
        if (ec) throw std::runtime_error("HTTP read: " + ec.message());
        return {static_cast<int>(res.result_int()), std::move(res.body())};
    }
};

BeastClient::BeastClient(const std::string &host, int port) : impl_(std::make_unique<Impl>()) {
    impl_->host = host;
    tcp::resolver resolver(impl_->io);
    boost::asio::connect(impl_->socket, resolver.resolve(host, std::to_string(port)));
    impl_->socket.set_option(tcp::no_delay(true));
}

BeastClient::~BeastClient() = default;

BeastAnswer BeastClient::post_json(const std::string &path, const std::string &body) {
    http::request<http::string_body> req{http::verb::post, path, 11};
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    return impl_->exchange(req);
}

BeastAnswer BeastClient::get(const std::string &path) {
    http::request<http::string_body> req{http::verb::get, path, 11};
    return impl_->exchange(req);
}

}  // namespace actionhost::bench
