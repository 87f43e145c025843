#include "http_transports.hpp"

#include <Poco/Exception.h>
#include <Poco/Runnable.h>
#include <Poco/URI.h>
#include <strings.h>

#include <actionhost/common/json_io.hpp>
#include <functional>

namespace actionhost::mcp {
namespace {

using json = nlohmann::json;

constexpr auto kKeepAlive = std::chrono::seconds(15);
constexpr const char *kSessionHeader = "Mcp-Session-Id";

// A task for the pool that deletes itself once run (Poco's pool does not own what it runs).
class Task : public Poco::Runnable {
  public:
    explicit Task(std::function<void()> f) : f_(std::move(f)) {}
    void run() override {
        f_();
        delete this;
    }

  private:
    std::function<void()> f_;
};

json rpc_error(const json &id, int code, const std::string &message) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace

Exchange::Exchange(const ah_http_stream_request_t *request, ah_http_stream_reply_t *reply)
    : request_(request), reply_(reply), method_(request->method ? request->method : ""),
      path_(request->path ? request->path : "") {}

std::string Exchange::header(const std::string &name) const {
    for (size_t i = 0; i < request_->header_count; ++i) {
        const auto &h = request_->headers[i];
        if (h.name && h.value && ::strcasecmp(h.name, name.c_str()) == 0) return h.value;
    }
    return "";
}

std::string Exchange::query_param(const std::string &name, bool *present) const {
    std::string value;
    bool found = false;
    try {
        Poco::URI uri("/?" + std::string(request_->query ? request_->query : ""));
        for (const auto &[k, v] : uri.getQueryParameters())
            if (k == name) {
                value = v;
                found = true;
            }
    } catch (const Poco::Exception &) {
    }
    if (present) *present = found;
    return value;
}

void Exchange::header_out(const std::string &name, const std::string &value) {
    reply_->set_header(reply_, name.c_str(), value.c_str());
}

void Exchange::send(int status, const std::string &content_type, const std::string &body) {
    reply_->send(reply_, status, content_type.c_str(), ah_bytes_t{body.data(), body.size()});
}

void Exchange::send_json(int status, const json &body) { send(status, "application/json", common::dump_json(body)); }

bool Exchange::begin_stream(int status, const std::string &content_type) {
    return reply_->begin_stream(reply_, status, content_type.c_str()) == AH_OK;
}

bool Exchange::write(const std::string &text) {
    return reply_->write(reply_, ah_bytes_t{text.data(), text.size()}) == AH_OK;
}

Transports::Transports(Gateway &gateway, SessionRegistry &sessions, std::atomic<bool> &stopping)
    : gateway_(gateway), sessions_(sessions), stopping_(stopping) {}

Transports::~Transports() { pool_.joinAll(); }

void Transports::pump(Exchange &ex, Session &session) {
    while (!stopping_) {
        auto messages = session.queue.wait(std::chrono::duration_cast<std::chrono::milliseconds>(kKeepAlive));
        if (session.queue.closed()) return;
        if (messages.empty()) {
            if (!ex.write(": ping\r\n\r\n")) return;  // also how a departed client is noticed
            continue;
        }
        std::string events;
        for (const auto &m : messages) events += "event: message\r\ndata: " + m + "\r\n\r\n";
        if (!ex.write(events)) return;
    }
}

void Transports::sse_stream(Exchange &ex, const std::string &messages_path) {
    if (ex.method() != "GET") return ex.send_json(405, {{"detail", "Method Not Allowed"}});
    auto session = sessions_.create(true);
    ex.header_out("Cache-Control", "no-store");
    ex.header_out("X-Accel-Buffering", "no");
    if (ex.begin_stream(200, "text/event-stream; charset=utf-8") &&
        ex.write("event: endpoint\r\ndata: " + messages_path + "?session_id=" + session->id + "\r\n\r\n"))
        pump(ex, *session);
    sessions_.remove(session->id);
}

void Transports::sse_message(Exchange &ex) {
    if (ex.method() != "POST") return ex.send_json(405, {{"detail", "Method Not Allowed"}});
    bool present = false;
    const std::string id = ex.query_param("session_id", &present);
    const char *text = "text/plain; charset=utf-8";
    if (!present) return ex.send(400, text, "session_id is required");
    if (SessionRegistry::normalise_id(id).empty()) return ex.send(400, text, "Invalid session ID");
    auto session = sessions_.find(id);
    if (!session || !session->sse) return ex.send(404, text, "Could not find session");
    auto parsed = common::parse_json(ex.body());
    if (!parsed || !(parsed.value().is_object() || parsed.value().is_array())) return ex.send(400, text, "Could not parse message");
    ex.send(202, text, "Accepted");
    // The answer goes over the stream; the work happens off this request (its client waits only for 202).
    std::vector<json> messages;
    if (parsed.value().is_array()) messages.assign(parsed.value().begin(), parsed.value().end());
    else messages.push_back(std::move(parsed.value()));
    for (const auto &m : messages) {
        auto work = [this, session, m] {
            if (auto response = gateway_.handle(m)) session->queue.push(common::dump_json(*response));
        };
        auto *task = new Task(std::move(work));
        try {
            pool_.start(*task);
        } catch (const Poco::NoThreadAvailableException &) {
            delete task;
            const json id_of = m.is_object() && m.contains("id") ? m["id"] : json();
            if (!id_of.is_null()) session->queue.push(common::dump_json(rpc_error(id_of, -32603, "The MCP proxy is busy; try again")));
        }
    }
}

void Transports::streamable(Exchange &ex) {
    const std::string &method = ex.method();
    if (method == "POST") return streamable_post(ex);
    if (method != "GET" && method != "DELETE") {
        ex.header_out("Allow", "GET, POST, DELETE");
        return ex.send_json(405, {{"detail", "Method Not Allowed"}});
    }
    const std::string sid = ex.header(kSessionHeader);
    if (sid.empty()) return ex.send_json(400, rpc_error(nullptr, -32000, "Bad Request: Missing session ID"));
    auto session = sessions_.find(sid);
    if (!session || session->sse) return ex.send_json(404, rpc_error(nullptr, -32001, "Session not found"));
    if (method == "DELETE") {
        sessions_.remove(sid);
        return ex.send(200, "application/json", "");
    }
    ex.header_out("Cache-Control", "no-store");
    ex.header_out(kSessionHeader, session->id);
    if (ex.begin_stream(200, "text/event-stream")) pump(ex, *session);
}

void Transports::streamable_post(Exchange &ex) {
    auto parsed = common::parse_json(ex.body());
    if (!parsed) return ex.send_json(400, rpc_error(nullptr, -32700, "Parse error: " + parsed.error().message));
    const json &body = parsed.value();
    std::vector<json> messages;
    if (body.is_array()) messages.assign(body.begin(), body.end());
    else messages.push_back(body);
    if (messages.empty()) return ex.send_json(400, rpc_error(nullptr, -32600, "Invalid Request: empty batch"));
    bool initialize = false;
    for (const auto &m : messages)
        if (m.is_object() && m.value("method", json()) == "initialize") initialize = true;

    std::shared_ptr<Session> session;
    if (initialize) {
        if (messages.size() > 1)
            return ex.send_json(400, rpc_error(nullptr, -32600, "Invalid Request: initialize must be sent alone"));
        session = sessions_.create(false);
    } else {
        const std::string sid = ex.header(kSessionHeader);
        if (sid.empty()) return ex.send_json(400, rpc_error(nullptr, -32000, "Bad Request: Missing session ID"));
        session = sessions_.find(sid);
        if (!session || session->sse) return ex.send_json(404, rpc_error(nullptr, -32001, "Session not found"));
    }
    json responses = json::array();
    for (const auto &m : messages)
        if (auto r = gateway_.handle(m)) responses.push_back(std::move(*r));
    ex.header_out(kSessionHeader, session->id);
    if (responses.empty()) return ex.send(202, "application/json", "");
    ex.send_json(200, body.is_array() ? responses : responses[0]);
}

}  // namespace actionhost::mcp
