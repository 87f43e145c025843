#include "support/beast_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <sstream>
#include <stdexcept>

namespace actionhost::bench {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

struct BeastClient::Impl {
    boost::asio::io_context io;
    tcp::socket socket{io};
    boost::beast::flat_buffer buffer;
    std::string host;

    void complete(http::request<http::string_body> &req) const {
        req.set(http::field::host, host);
        req.keep_alive(true);
        req.prepare_payload();
    }

    BeastAnswer exchange(http::request<http::string_body> &req) {
        complete(req);
        boost::system::error_code ec;
        http::write(socket, req, ec);
        if (ec) throw std::runtime_error("HTTP write: " + ec.message());
        return answer();
    }

    BeastAnswer answer() {
        boost::system::error_code ec;
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

namespace {
// The two requests the benchmarks send, built one way whether written each time or serialised once.
http::request<http::string_body> post_json_request(const std::string &path, const std::string &body) {
    http::request<http::string_body> req{http::verb::post, path, 11};
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    return req;
}
http::request<http::string_body> get_request(const std::string &path) { return {http::verb::get, path, 11}; }

std::string serialized(const http::request<http::string_body> &req) {
    std::ostringstream out;
    out << req;  // Beast's own serializer, as http::write uses it
    return out.str();
}
}  // namespace

BeastAnswer BeastClient::post_json(const std::string &path, const std::string &body) {
    auto req = post_json_request(path, body);
    return impl_->exchange(req);
}

BeastAnswer BeastClient::get(const std::string &path) {
    auto req = get_request(path);
    return impl_->exchange(req);
}

std::string BeastClient::serialized_post_json(const std::string &path, const std::string &body) const {
    auto req = post_json_request(path, body);
    impl_->complete(req);
    return serialized(req);
}

std::string BeastClient::serialized_get(const std::string &path) const {
    auto req = get_request(path);
    impl_->complete(req);
    return serialized(req);
}

BeastAnswer BeastClient::send_serialized(const std::string &request) {
    boost::system::error_code ec;
    boost::asio::write(impl_->socket, boost::asio::buffer(request), ec);
    if (ec) throw std::runtime_error("HTTP write: " + ec.message());
    return impl_->answer();
}

}  // namespace actionhost::bench
