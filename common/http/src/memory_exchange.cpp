#include "actionhost/common/http/memory_exchange.hpp"

#include <boost/beast/core/string.hpp>
#include <stdexcept>

#include <fstream>
#include <optional>
#include <sstream>

namespace actionhost::common::http {

namespace {


class MemoryRequest : public Request {
  public:
    explicit MemoryRequest(const ExchangeRequest &r) : r_(r), body_(r.body) {}

    const std::string &method() const override { return r_.method; }
    const std::string &target() const override { return r_.uri; }
    std::string header(std::string_view name, std::string_view fallback) const override {
        for (const auto &[k, v] : r_.headers)
            if (boost::beast::iequals(k, boost::beast::string_view(name.data(), name.size()))) return v;
        return std::string(fallback);
    }
    HeaderList headers() const override { return r_.headers; }
    const std::string &remote_address() const override { return r_.remote_address; }
    std::optional<uint64_t> content_length() const override { return r_.body.size(); }
    std::istream &body() override { return body_; }

  private:
    const ExchangeRequest &r_;
    std::istringstream body_;
};

class MemoryResponse : public Response {
  public:
    bool set_header(std::string_view name, std::string_view value) override {
        if (sent_) return false;
        headers_.emplace_back(std::string(name), std::string(value));
        return true;
    }
    void close_connection() override {}
    void send(int status, std::string_view content_type, std::string_view body) override {
        if (sent_) return;
        begin(status, content_type);
        body_.write(body.data(), static_cast<std::streamsize>(body.size()));
    }
    void send_file(int status, std::string_view content_type, const std::string &path) override {
        if (sent_) return;
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot send " + path);
        begin(status, content_type);
        body_ << in.rdbuf();
    }
    std::ostream &begin_stream(int status, std::string_view content_type) override {
        if (!sent_) begin(status, content_type);
        return body_;
    }
    bool sent() const override { return sent_; }

    int status() const { return status_; }
    const std::string &content_type() const { return content_type_; }
    std::string body() const { return body_.str(); }
    const HeaderList &headers() const { return headers_; }

  private:
    void begin(int status, std::string_view content_type) {
        sent_ = true;
        status_ = status;
        content_type_ = content_type;
    }
    bool sent_ = false;
    int status_ = 500;
    std::string content_type_;
    std::ostringstream body_;
    HeaderList headers_;
};

const char kGenericError[] = R"({"detail":"An unexpected error occurred. Please try again later."})";

}  // namespace

ExchangeResponse exchange(const Handler &handler, const ExchangeRequest &request) {
    ExchangeResponse out;
    out.body = kGenericError;
    try {
        MemoryRequest req(request);
        MemoryResponse response;
        handler(req, response);
        if (!response.sent()) return out;
        out.status = response.status();
        out.content_type = response.content_type();
        out.body = response.body();
        out.headers = response.headers();
    } catch (const std::exception &) {
        out.status = 500;
        out.body = kGenericError;
    }
    return out;
}

}  // namespace actionhost::common::http
