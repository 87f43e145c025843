// One HTTP request and its response, as a handler sees them: the interface every server of ours
// implements (the socket server in server.hpp, the cli runtime's in-memory exchange), so a handler is
// written once and never knows which one called it.
//
// Threads: a request and its response belong to the one thread that runs the handler; neither may be
// kept after the handler returns.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace actionhost::common::http {

struct WebSocket;  // websocket.hpp
struct WebSocketLimits;
struct UpgradedConnection;  // upgraded_connection.hpp

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class Request {
  public:
    virtual ~Request() = default;
    virtual const std::string &method() const = 0;
    // The request target as sent: the path with its query ("/view?path=/a"), percent-encoding kept.
    virtual const std::string &target() const = 0;
    // The first value of a header (names compare case-insensitively), or `fallback`.
    virtual std::string header(std::string_view name, std::string_view fallback = {}) const = 0;
    virtual HeaderList headers() const = 0;
    // The peer's IP address as text ("127.0.0.1", "::1"); "" for a peer without one.
    virtual const std::string &remote_address() const = 0;
    // The body's declared length; nullopt for a chunked body.
    virtual std::optional<uint64_t> content_length() const = 0;
    // The body, de-chunked; it ends (EOF) where the body ends. A body the peer stops sending, or one
    // that breaks the framing, sets badbit. Reading it first answers a client's "Expect: 100-continue".
    virtual std::istream &body() = 0;
};

class Response {
  public:
    virtual ~Response() = default;
    // Adds a header to the response (before it is sent). Names and values holding CR, LF or NUL are
    // refused (returns false) so that no text of a request can become a header line.
    virtual bool set_header(std::string_view name, std::string_view value) = 0;
    // Ends the connection after this response instead of keeping it for the next request.
    virtual void close_connection() = 0;
    // The whole response in one call. Only the first send/send_file/begin_stream counts.
    virtual void send(int status, std::string_view content_type, std::string_view body) = 0;
    // A file's content as the body (read as it is sent, never whole into memory). Throws
    // std::runtime_error when the file cannot be opened (nothing has been sent then).
    virtual void send_file(int status, std::string_view content_type, const std::string &path) = 0;
    // Starts a body of unknown length (chunked): what is written to the stream is sent at each flush
    // and when the handler returns. The stream goes bad once the peer is gone.
    virtual std::ostream &begin_stream(int status, std::string_view content_type) = 0;
    // The same for a body of known length (a relayed one): sent as it is written, `content_length`
    // bytes exactly (the handler writes that many; fewer end the connection short). An exchange without
    // a socket answers it as begin_stream(status, content_type).
    virtual std::ostream &begin_stream(int status, std::string_view content_type, uint64_t content_length);
    // Whether send, send_file or begin_stream was called.
    virtual bool sent() const = 0;
    // Completes the request's WebSocket upgrade: answers 101 (Beast checks the request's Upgrade,
    // Connection, Sec-WebSocket-Key and -Version fields) and hands the connection over as a WebSocket,
    // the handler's until it returns; the connection ends with it. nullptr when the request is no valid
    // upgrade (nothing has been sent then: answer it as usual), when the peer sent bytes before the
    // answer, or when this exchange has no socket (the in-memory one). Counts as sent.
    virtual std::unique_ptr<WebSocket> accept_websocket(const WebSocketLimits &limits);
    // Answers `status` (101) with the headers set and nothing else of its own, then hands the
    // connection over as a plain socket on `io` (for a proxy that relays an upgraded protocol it does not
    // speak), with the bytes the peer sent after the request's header. The handler's until it returns;
    // the connection ends with it. nullptr when something was sent already, or this exchange has no
    // socket. Counts as sent.
    virtual std::unique_ptr<UpgradedConnection> upgrade(int status, boost::asio::io_context &io);
};

// The standard reason phrase of a status code ("Not Found"); "Unknown" for codes it does not name.
std::string_view reason_phrase(int status);

// A Content-Disposition value for a download named `filename` (RFC 6266 with RFC 8187's filename*):
// `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>`, or, for a name of
// letters, digits and "-._~" only, `attachment; filename="<name>"` (what OpenHands' server sends).
// Whatever the name holds (CR, LF, quotes, backslashes, non-ASCII, invalid UTF-8) the value is one safe
// header line.
std::string attachment_disposition(std::string_view filename);

// Splits "path?query" into its two parts; the query is "" when there is none.
std::pair<std::string, std::string> split_target(const std::string &target);

// The value of the query parameter `name` in a raw query string ("a=1&b=2"), percent-decoded; the last
// one when repeated (as FastAPI takes it); nullopt when absent.
std::optional<std::string> query_parameter(const std::string &query, std::string_view name);

}  // namespace actionhost::common::http
