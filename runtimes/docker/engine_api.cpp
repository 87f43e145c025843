#include "engine_api.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "actionhost/runtime_support/host_http.hpp"

namespace docker {

using nlohmann::json;

namespace {
const char *kApiVersion = "/v1.41";  // Docker 20.10 (Debian 12's docker.io) and newer engines accept it
}

json EngineReply::json() const {
    try {
        return nlohmann::json::parse(body);
    } catch (...) {
        return nlohmann::json();
    }
}

Engine::Engine(const ah_runtime_host_t *host, const std::string &where) : host_(host) {
    if (where.rfind("tcp://", 0) == 0) {
        base_ = "http://" + where.substr(6) + kApiVersion;
        std::string hostport = where.substr(6);
        while (!hostport.empty() && hostport.back() == '/') hostport.pop_back();
        const size_t colon = hostport.rfind(':');
        tcp_host_ = colon == std::string::npos ? hostport : hostport.substr(0, colon);
        tcp_port_ = colon == std::string::npos ? 2375 : std::atoi(hostport.c_str() + colon + 1);
    } else {
        unix_socket_ = where.rfind("unix://", 0) == 0 ? where.substr(7) : where;
        base_ = "unix://" + unix_socket_ + ":" + kApiVersion;
    }
}

std::unique_ptr<Poco::Net::HTTPClientSession> Engine::open_session(double idle_timeout_s) const {
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    if (unix_socket_.empty()) {
        session = std::make_unique<Poco::Net::HTTPClientSession>(tcp_host_, static_cast<Poco::UInt16>(tcp_port_));
    } else {
        Poco::Net::StreamSocket socket;
        socket.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, unix_socket_), Poco::Timespan(10, 0));
        session = std::make_unique<Poco::Net::HTTPClientSession>(socket);
    }
    const Poco::Timespan idle(static_cast<long>(idle_timeout_s), static_cast<long>((idle_timeout_s - static_cast<long>(idle_timeout_s)) * 1e6));
    session->setTimeout(Poco::Timespan(10, 0), Poco::Timespan(60, 0), idle);
    return session;
}

std::istream &Engine::send(Poco::Net::HTTPClientSession &session, const std::string &method, const std::string &path,
                           const std::vector<std::string> &headers, const std::string &body, const std::string &content_type,
                           Poco::Net::HTTPResponse &response) {
    Poco::Net::HTTPRequest request(method, std::string(kApiVersion) + path, Poco::Net::HTTPMessage::HTTP_1_1);
    request.set("Host", "docker");
    for (const auto &h : headers) {
        const size_t colon = h.find(':');
        if (colon == std::string::npos) continue;
        size_t v = colon + 1;
        while (v < h.size() && h[v] == ' ') ++v;
        request.set(h.substr(0, colon), h.substr(v));
    }
    if (!body.empty()) {
        request.setContentType(content_type);
        request.setContentLength(static_cast<std::streamsize>(body.size()));
    } else if (method == "POST") {
        request.setContentLength(0);
    }
    std::ostream &out = session.sendRequest(request);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    return session.receiveResponse(response);
}

EngineReply Engine::stream(const std::string &method, const std::string &path, const std::string &body,
                           const std::string &content_type, const std::vector<std::string> &headers,
                           const std::function<void(const nlohmann::json &)> &on_message, double idle_timeout_s,
                           double total_timeout_s) {
    const std::string where = unix_socket_.empty() ? tcp_host_ + ":" + std::to_string(tcp_port_) : unix_socket_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(total_timeout_s);
    try {
        std::unique_ptr<Poco::Net::HTTPClientSession> session = open_session(idle_timeout_s);
        Poco::Net::HTTPResponse response;
        std::istream &in = send(*session, method, path, headers, body, content_type, response);
        const int status = static_cast<int>(response.getStatus());
        if (status != 200) {
            std::ostringstream rest;
            rest << in.rdbuf();
            return {status, rest.str()};
        }
        std::string line;
        for (long i = 0; i < 100000000 && std::getline(in, line); ++i) {
            if (std::chrono::steady_clock::now() >= deadline)
                throw std::runtime_error("Docker Engine: " + method + " " + path + " took longer than " +
                                         std::to_string(static_cast<long>(total_timeout_s)) + " s");
            if (line.empty() || line == "\r") continue;
            json m = json::parse(line, nullptr, false);
            if (!m.is_discarded() && on_message) on_message(m);
        }
        return {status, ""};
    } catch (const Poco::TimeoutException &) {
        throw std::runtime_error("Docker Engine: " + method + " " + path + " sent nothing for " +
                                 std::to_string(static_cast<long>(idle_timeout_s)) + " s");
    } catch (const Poco::Exception &e) {
        throw std::runtime_error("cannot reach the Docker engine (" + where + "): " + e.displayText());
    }
}

// One call without a client's services (ah-docker-keeper), the whole answer read.
EngineReply Engine::direct_call(const std::string &method, const std::string &path, const std::string &body,
                                const std::string &content_type, double timeout_s) {
    const std::string where = unix_socket_.empty() ? tcp_host_ + ":" + std::to_string(tcp_port_) : unix_socket_;
    try {
        std::unique_ptr<Poco::Net::HTTPClientSession> session = open_session(timeout_s);
        Poco::Net::HTTPResponse response;
        std::istream &in = send(*session, method, path, {}, body, content_type, response);
        std::ostringstream answer;
        answer << in.rdbuf();
        return {static_cast<int>(response.getStatus()), answer.str()};
    } catch (const Poco::Exception &e) {
        throw std::runtime_error("cannot reach the Docker engine (" + where + "): " + e.displayText());
    }
}

EngineReply Engine::call(const std::string &method, const std::string &path, const std::string &body,
                         const std::string &content_type, double timeout_s) {
    if (host_ == nullptr) return direct_call(method, path, body, content_type, timeout_s);
    std::string url = base_ + path;
    std::vector<std::string> headers;
    if (!body.empty()) headers.push_back("Content-Type: " + content_type);
    const actionhost::runtime_support::HostHttpReply r = actionhost::runtime_support::host_http_request(host_, method, url, headers, body, timeout_s);
    EngineReply reply;
    reply.status = r.status;
    reply.body = r.body;
    const ah_status_t st = r.transport;
    const std::string &error = r.error;
    if (st != AH_OK) throw std::runtime_error("cannot reach the Docker engine (" + url + "): " + error);
    return reply;
}

EngineReply Engine::expect(const std::string &method, const std::string &path, const std::string &body, int ok1, int ok2,
                           double timeout_s) {
    EngineReply r = call(method, path, body, "application/json", timeout_s);
    if (r.status != ok1 && r.status != ok2) {
        json j = r.json();
        std::string msg = j.is_object() && j.contains("message") ? j["message"].get<std::string>() : r.body;
        throw std::runtime_error("Docker Engine: " + method + " " + path + " → " + std::to_string(r.status) + ": " + msg);
    }
    return r;
}

void Engine::remove_container(const std::string &id) {
    if (id.empty()) return;
    call("POST", "/containers/" + id + "/unpause", "", "application/json", 30);  // 409 when it is not paused
    call("POST", "/containers/" + id + "/stop?t=2", "", "application/json", 30);
    call("DELETE", "/containers/" + id + "?force=true", "", "application/json", 30);
}

std::optional<json> Engine::inspect(const std::string &name) {
    EngineReply r = call("GET", "/containers/" + name + "/json");
    if (r.status == 404) return std::nullopt;
    if (r.status != 200) throw std::runtime_error("Docker Engine: inspect " + name + " → " + std::to_string(r.status) + ": " + r.body);
    return r.json();
}

}  // namespace docker
