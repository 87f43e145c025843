#include "actionhost/client/http_transport.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/FilePartSource.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/MultipartWriter.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/PartSource.h>
#include <Poco/Net/SSLException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/StringPartSource.h>

#include <cctype>
#include <chrono>

#include "actionhost/client/in_process.hpp"
#include "actionhost/runtime_support/tls_failure.hpp"
#include "tls_session.hpp"
#include <sstream>
#include <stdexcept>

namespace actionhost::client {

namespace {

Endpoint parse_authority(const std::string &authority, const std::string &url, int default_port = 80) {
    Endpoint e;
    auto colon = authority.rfind(':');
    if (colon == std::string::npos || authority.find(']') != std::string::npos) {
        e.host = authority;
        e.port = default_port;
    } else {
        e.host = authority.substr(0, colon);
        try {
            e.port = std::stoi(authority.substr(colon + 1));
        } catch (...) {
            throw std::invalid_argument("Bad port in URL: " + url);
        }
    }
    if (e.host.empty()) throw std::invalid_argument("No host in URL: " + url);
    return e;
}

}  // namespace

Endpoint parse_base_url(const std::string &url) {
    auto [endpoint, path] = split_url(url);
    endpoint.base_path = path == "/" ? "" : path;
    while (!endpoint.base_path.empty() && endpoint.base_path.back() == '/') endpoint.base_path.pop_back();
    return endpoint;
}

std::pair<Endpoint, std::string> split_url(const std::string &url) {
    const std::string http = "http://", unix_scheme = "unix://";
    if (url.rfind(unix_scheme, 0) == 0) {
        std::string rest = url.substr(unix_scheme.size());
        Endpoint e;
        e.unix_socket = true;
        auto sep = rest.find(":/");
        e.host = sep == std::string::npos ? rest : rest.substr(0, sep);
        if (e.host.empty() || e.host[0] != '/') throw std::invalid_argument("unix:// URL needs an absolute socket path: " + url);
        return {e, sep == std::string::npos ? "/" : rest.substr(sep + 1)};
    }
    if (url.rfind(AH_IN_PROCESS_URL_SCHEME, 0) == 0) {
        std::string rest = url.substr(std::string(AH_IN_PROCESS_URL_SCHEME).size());
        Endpoint e;
        e.in_process = true;
        auto slash = rest.find('/');
        e.host = rest.substr(0, slash);
        if (e.host.empty()) throw std::invalid_argument("inproc:// URL needs a name: " + url);
        return {e, slash == std::string::npos ? "/" : rest.substr(slash)};
    }
    if (url.rfind(http, 0) == 0) {
        std::string rest = url.substr(http.size());
        auto slash = rest.find('/');
        std::string authority = rest.substr(0, slash);
        return {parse_authority(authority, url), slash == std::string::npos ? "/" : rest.substr(slash)};
    }
    if (url.rfind("https://", 0) == 0) {
        std::string rest = url.substr(8);
        auto slash = rest.find('/');
        Endpoint e = parse_authority(rest.substr(0, slash), url, 443);
        e.tls = true;
        return {e, slash == std::string::npos ? "/" : rest.substr(slash)};
    }
    throw std::invalid_argument("Unsupported URL (only http://, https://, unix:// and inproc:// are built in): " + url);
}

struct HttpConnection::Impl {
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    std::chrono::steady_clock::time_point last_used;
};

HttpConnection::HttpConnection(Endpoint endpoint) : endpoint_(std::move(endpoint)), impl_(std::make_unique<Impl>()) {}
HttpConnection::~HttpConnection() = default;

HttpResponse HttpConnection::send(const HttpRequest &request) {
    if (endpoint_.in_process && request.on_body)
        throw TransportError(TransportFailure::Other, "streamed responses are not served in-process");
    if (endpoint_.in_process && request.write_body) {
        // In this process the body is a buffer either way.
        HttpRequest buffered = request;
        std::ostringstream body;
        request.write_body(body);
        buffered.body = body.str();
        buffered.write_body = nullptr;
        return send_in_process(endpoint_.host, endpoint_.base_path + request.path, buffered);
    }
    if (endpoint_.in_process) return send_in_process(endpoint_.host, endpoint_.base_path + request.path, request);
    bool reused = false;
    try {
        return send_once(request, reused);
    } catch (const TransportError &e) {
        // A kept-alive connection the server closed while we were idle (a restarted host, its keep-alive
        // timeout) fails before any answer: that request never reached a server, so it goes again on a
        // new connection now rather than after the caller's backoff. Actions carry X-Request-ID besides.
        if (!reused || e.kind() != TransportFailure::Closed) throw;
        return send_once(request, reused);
    }
}

HttpResponse HttpConnection::send_once(const HttpRequest &request, bool &reused_connection) {
    using namespace Poco::Net;
    const Poco::Timespan timeout(static_cast<Poco::Timespan::TimeDiff>(request.timeout_s * 1e6));
    try {
        // Poco reconnects a kept session by itself (after its keep-alive timeout), but only over TCP: a
        // unix socket session past that timeout is replaced here instead.
        if (impl_->session && endpoint_.unix_socket &&
            std::chrono::steady_clock::now() - impl_->last_used >=
                std::chrono::microseconds(impl_->session->getKeepAliveTimeout().totalMicroseconds()))
            impl_->session.reset();
        reused_connection = impl_->session != nullptr;
        if (!impl_->session) {
            if (endpoint_.unix_socket) {
                StreamSocket socket(SocketAddress::UNIX_LOCAL);
                socket.connect(SocketAddress(SocketAddress::UNIX_LOCAL, endpoint_.host), timeout);
                impl_->session = std::make_unique<HTTPClientSession>(socket);
            } else if (endpoint_.tls) {
                impl_->session = make_tls_session(endpoint_.host, endpoint_.port);
            } else {
                impl_->session = std::make_unique<HTTPClientSession>(endpoint_.host, static_cast<Poco::UInt16>(endpoint_.port));
            }
            impl_->session->setKeepAlive(true);
        }
        auto &session = *impl_->session;
        session.setTimeout(timeout);
        // Poco applies a session's timeouts only when it connects a socket itself: a unix socket (connected
        // here) and a kept-alive connection would otherwise wait forever, or with the first request's
        // timeout, for a host that stopped answering (a stopped host left `ahctl` blocked in recv).
        if (reused_connection || endpoint_.unix_socket) {  // a fresh TCP session has no socket yet
            session.socket().setReceiveTimeout(timeout);
            session.socket().setSendTimeout(timeout);
        }
        HTTPRequest req(request.method, endpoint_.base_path + request.path, HTTPMessage::HTTP_1_1);
        req.setHost(endpoint_.unix_socket ? "localhost" : endpoint_.host, static_cast<Poco::UInt16>(endpoint_.port));
        req.setKeepAlive(true);
        for (const auto &[name, value] : request.headers) req.set(name, value);
        if (request.write_body) {
            req.setChunkedTransferEncoding(true);
            if (!request.content_type.empty()) req.setContentType(request.content_type);
        } else if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
            req.setContentLength(static_cast<std::streamsize>(request.body.size()));
            if (!request.content_type.empty()) req.setContentType(request.content_type);
        }
        std::ostream &out = session.sendRequest(req);
        if (request.write_body) request.write_body(out);
        else out.write(request.body.data(), static_cast<std::streamsize>(request.body.size()));
        HTTPResponse resp;
        std::istream &in = session.receiveResponse(resp);
        HttpResponse result;
        result.status = static_cast<int>(resp.getStatus());
        for (const auto &[name, value] : resp) {
            std::string lower = name;
            for (auto &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            auto [it, fresh] = result.headers.emplace(lower, value);
            if (!fresh) it->second += ", " + value;  // a repeated header is one list (RFC 9110 §5.3)
        }
        if (request.on_body && request.on_head && !request.on_head(result.status, result.headers)) {
            impl_->session.reset();
            return result;
        }
        if (request.on_body) {
            // A stream: each piece as soon as it arrives; the connection is not reused afterwards.
            char buf[16384];
            bool more = true;
            while (more && in) {
                in.read(buf, 1);  // blocks until something arrives (or the receive timeout)
                if (in.gcount() <= 0) break;
                const std::streamsize rest = in.rdbuf()->in_avail();
                if (rest > 0) in.read(buf + 1, std::min<std::streamsize>(rest, sizeof buf - 1));
                more = request.on_body(std::string_view(buf, static_cast<size_t>(1 + (rest > 0 ? in.gcount() : 0))));
            }
            impl_->session.reset();
            return result;
        }
        char buf[65536];
        while (in) {
            in.read(buf, sizeof buf);
            const std::streamsize n = in.gcount();
            if (n <= 0) break;
            if (result.body.size() + static_cast<uint64_t>(n) > request.max_body_bytes) {
                impl_->session.reset();
                throw TransportError(TransportFailure::Other, "The answer to " + request.method + " " + request.path + " is larger than " +
                                                                  std::to_string(request.max_body_bytes) + " bytes: refused");
            }
            result.body.append(buf, static_cast<size_t>(n));
        }
        if (!resp.getKeepAlive()) impl_->session.reset();
        impl_->last_used = std::chrono::steady_clock::now();
        return result;
    } catch (const Poco::TimeoutException &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Timeout, "Timed out after " + std::to_string(request.timeout_s) + " s: " + e.displayText());
    } catch (const ConnectionRefusedException &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Refused, "Connection refused: " + e.displayText());
    } catch (const NoMessageException &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Closed, "Server closed the connection without a response: " + e.displayText());
    } catch (const ConnectionResetException &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Closed, "Connection reset: " + e.displayText());
    } catch (const MessageException &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Closed, "Malformed HTTP response: " + e.displayText());
    } catch (const Poco::Net::SSLException &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Tls, std::string(runtime_support::kTlsFailurePrefix) + e.displayText());
    } catch (const Poco::Exception &e) {
        impl_->session.reset();
        // A unix socket that does not exist (yet) is a refusal too: the server is not listening.
        auto kind = e.code() == ECONNREFUSED || e.code() == ENOENT ? TransportFailure::Refused : TransportFailure::Other;
        throw TransportError(kind, e.displayText());
    } catch (const std::ios_base::failure &e) {
        impl_->session.reset();
        throw TransportError(TransportFailure::Closed, e.what());
    }
}

MultipartFile::MultipartFile(std::string field, std::string filename, std::string path)
    : field_(std::move(field)), filename_(std::move(filename)), path_(std::move(path)),
      boundary_(Poco::Net::MultipartWriter::createBoundary()) {}

std::string MultipartFile::content_type() const { return "multipart/form-data; boundary=" + boundary_; }

void MultipartFile::write(std::ostream &out) const {
    Poco::Net::HTMLForm form;
    form.setEncoding(Poco::Net::HTMLForm::ENCODING_MULTIPART);
    // Poco reads the part's stream as it writes the form: the file is never in memory whole.
    form.addPart(field_, new Poco::Net::FilePartSource(path_, filename_, "application/octet-stream"));
    form.write(out, boundary_);
}

std::pair<std::string, std::string> multipart_file(const std::string &field, const std::string &filename,
                                                   const std::string &content) {
    Poco::Net::HTMLForm form;
    form.setEncoding(Poco::Net::HTMLForm::ENCODING_MULTIPART);
    form.addPart(field, new Poco::Net::StringPartSource(content, "application/octet-stream", filename));
    std::ostringstream body;
    form.write(body);
    std::string type = "multipart/form-data; boundary=" + form.boundary();
    return {body.str(), type};
}

}  // namespace actionhost::client
