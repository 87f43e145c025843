#include "engine_api.hpp"

#include <stdexcept>

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
    if (where.rfind("tcp://", 0) == 0) base_ = "http://" + where.substr(6) + kApiVersion;
    else if (where.rfind("unix://", 0) == 0) base_ = where + ":" + kApiVersion;
    else base_ = "unix://" + where + ":" + kApiVersion;
}

EngineReply Engine::call(const std::string &method, const std::string &path, const std::string &body,
                         const std::string &content_type, double timeout_s) {
    std::string url = base_ + path;
    std::string type_header = "Content-Type: " + content_type;
    const char *headers[] = {type_header.c_str(), nullptr};
    ah_http_call_t c{};
    c.struct_size = sizeof c;
    c.method = method.c_str();
    c.url = url.c_str();
    c.headers = body.empty() ? nullptr : headers;
    c.body = {body.data(), body.size()};
    c.timeout_s = timeout_s;
    ah_http_result_t r{};
    r.struct_size = sizeof r;
    ah_status_t st = host_->http_request(host_, &c, &r);
    EngineReply reply;
    reply.status = r.status;
    if (r.body.ptr) reply.body.assign(r.body.ptr, r.body.len);
    std::string error = r.error ? r.error : "";
    host_->http_result_free(host_, &r);
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

std::optional<json> Engine::inspect(const std::string &name) {
    EngineReply r = call("GET", "/containers/" + name + "/json");
    if (r.status == 404) return std::nullopt;
    if (r.status != 200) throw std::runtime_error("Docker Engine: inspect " + name + " → " + std::to_string(r.status) + ": " + r.body);
    return r.json();
}

}  // namespace docker
