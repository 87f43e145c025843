// A small HTTP(S) server for provider fakes: Poco HTTPServer on an ephemeral 127.0.0.1 port, every
// request handed to one function as plain data, every request recorded (method, path, headers) so a
// test can assert what the client sent.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::testing {

struct FakeRequest {
    std::string method, path, query;           // path without the query; query without '?'
    std::map<std::string, std::string> params;  // decoded query parameters (last one wins)
    std::map<std::string, std::string> headers; // names lower-cased
    std::string body;
    std::string content_type;
    std::string client_common_name;  // CN of the client certificate the TLS handshake verified, if any
    nlohmann::json json() const {  // null when the body is not JSON
        nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
        return j.is_discarded() ? nlohmann::json() : j;
    }
    std::string header(const std::string &lower_name) const {
        auto it = headers.find(lower_name);
        return it == headers.end() ? "" : it->second;
    }
};

struct FakeResponse {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";  // sent with a non-empty body
    std::map<std::string, std::string> headers;     // extra response headers
    // A null body is sent as no body.
    static FakeResponse json(int status, const nlohmann::json &body) {
        return {status, body.is_null() ? std::string() : body.dump(), "application/json", {}};
    }
};

using FakeHandler = std::function<FakeResponse(const FakeRequest &)>;

struct TlsServerFiles {
    std::string cert_file, key_file;  // PEM
    // With a CA file, clients are asked for a certificate (as the Kubernetes API server asks): one that
    // is presented must be signed by this CA or the handshake fails; none at all is allowed.
    std::string client_ca_file;
};

class FakeHttpServer {
  public:
    explicit FakeHttpServer(FakeHandler handler, std::optional<TlsServerFiles> tls = std::nullopt);
    ~FakeHttpServer();
    FakeHttpServer(const FakeHttpServer &) = delete;
    FakeHttpServer &operator=(const FakeHttpServer &) = delete;

    int port() const { return port_; }
    // "http://127.0.0.1:<port>" or "https://127.0.0.1:<port>".
    std::string url() const;
    std::vector<FakeRequest> requests() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int port_ = 0;
    bool tls_ = false;
};

// Decodes a query string ("a=1&b=x%20y").
std::map<std::string, std::string> parse_query(const std::string &query);

}  // namespace actionhost::testing
