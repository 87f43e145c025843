// HTTP/1.1 over TCP (http://host:port/path) or a unix socket (unix:///path/to.sock:/request/path), with
// Poco::Net. One job: move one request and its response; retries and meaning live in WireClient.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actionhost::client {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    std::string method = "GET";
    std::string path = "/";          // request path + query, relative to the connection's base
    HeaderList headers;
    std::string body;
    std::string content_type;        // set when body is non-empty
    double timeout_s = 30.0;
    // A collected response body (no on_body) larger than this ends the request with a TransportError
    // (Other) instead of the client's memory: a host or server that answers without end. Large transfers
    // stream (on_body).
    uint64_t max_body_bytes = kDefaultMaxBodyBytes;
    static constexpr uint64_t kDefaultMaxBodyBytes = 512ull << 20;
    // When set, the response body is handed over piece by piece as it arrives (a long-lived stream such
    // as GET /stream) instead of being collected; returning false stops reading and drops the connection.
    // timeout_s then bounds each wait for the next piece. Not for in-process endpoints.
    std::function<bool(std::string_view piece)> on_body;
    // With on_body: called with the status and headers before the first piece (a registry's error answer
    // is told apart from a blob's bytes); returning false stops before the body.
    std::function<bool(int status, const std::map<std::string, std::string> &headers)> on_head;
    // When set, the body is written by this instead of `body`, as it is produced (a file's upload), and
    // sent with chunked transfer coding; it may be called again for a retry and must start over.
    std::function<void(std::ostream &out)> write_body;
    // Called before each attempt WireClient::request makes (a streamed response starts over).
    std::function<void()> on_attempt;
};

struct HttpResponse {
    int status = 0;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
};

// Why no response arrived. `Closed` is what OpenHands retries (httpx.RemoteProtocolError).
// Tls: the TLS handshake failed (a certificate not trusted, expired or for another host); retrying
// cannot help.
enum class TransportFailure { Refused, Timeout, Closed, Tls, Other };

class TransportError : public std::runtime_error {
  public:
    TransportError(TransportFailure kind, const std::string &what) : std::runtime_error(what), kind_(kind) {}
    TransportFailure kind() const { return kind_; }

  private:
    TransportFailure kind_;
};

// Where a connection goes: parsed from "http://127.0.0.1:30000" or "unix:///run/x.sock".
struct Endpoint {
    bool unix_socket = false;
    std::string host;  // TCP host, or the socket path
    int port = 80;
    std::string base_path;  // path prefix of the base URL ("" usually)
    bool tls = false;         // https:// (tls_session.cpp)
    bool in_process = false;  // "inproc://<name>": served in this process (in_process.hpp); host = name
};

// Parses a base URL (http://, https://, unix://). Throws std::invalid_argument for anything else.
Endpoint parse_base_url(const std::string &url);
// Splits a full URL into its endpoint and request path: "http://h:1/a?b" → ({h,1}, "/a?b");
// "unix:///s.sock:/v1.41/info" → ({/s.sock}, "/v1.41/info").
std::pair<Endpoint, std::string> split_url(const std::string &url);

// A connection to one endpoint. Keeps a TCP connection alive between requests (reconnecting when the
// server closed it); opens a fresh unix-socket connection per request. Not thread-safe.
class HttpConnection {
  public:
    explicit HttpConnection(Endpoint endpoint);
    ~HttpConnection();
    HttpConnection(const HttpConnection &) = delete;
    HttpConnection &operator=(const HttpConnection &) = delete;

    // Throws TransportError when no response arrived. Connections are kept alive between requests
    // (unix sockets too); a kept connection the server has closed meanwhile is replaced at once.
    HttpResponse send(const HttpRequest &request);
    const Endpoint &endpoint() const { return endpoint_; }

  private:
    HttpResponse send_once(const HttpRequest &request, bool &reused_connection);
    struct Impl;
    Endpoint endpoint_;
    std::unique_ptr<Impl> impl_;
};

// A multipart/form-data body holding one file field whose content is a file on disk, written as it is
// read (for HttpRequest::write_body; write() may be called again for a retry).
class MultipartFile {
  public:
    MultipartFile(std::string field, std::string filename, std::string path);
    std::string content_type() const;
    void write(std::ostream &out) const;

  private:
    std::string field_, filename_, path_, boundary_;
};

// Builds a multipart/form-data body holding one file field; returns {body, content type}.
std::pair<std::string, std::string> multipart_file(const std::string &field, const std::string &filename,
                                                   const std::string &content);

}  // namespace actionhost::client
