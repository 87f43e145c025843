// The plugin worker process (`actionhost --plugin-worker FD`): loads one isolated plugin with the real
// module loader and runs the calls the host forwards, each on a thread of its own, as the host would run
// them (isolated_plugin.hpp). Everything the plugin sends through its host services for a call goes back
// tagged with the call's id.
#include <unistd.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/modules/manifest.hpp>

#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "modules/call_state.hpp"
#include "modules/host_environment.hpp"
#include "modules/isolated_plugin.hpp"
#include "modules/plugin_module.hpp"
#include "sys/worker_wire.hpp"

namespace actionhost::host {
namespace {

class Outbox {
  public:
    explicit Outbox(int fd) : fd_(fd) {}
    void send(const nlohmann::json &m) {
        std::lock_guard lock(mu_);
        (void)write_frame(fd_, common::dump_json(m));  // a host that is gone closes our input too: we end there
    }
    // A message followed by one raw frame: the message is marked "raw" here, the one place that writes the
    // frame, since the host reads a frame after a message only when it says so.
    void send(nlohmann::json m, std::string_view raw) {
        m["raw"] = true;
        std::lock_guard lock(mu_);
        (void)write_frames(fd_, common::dump_json(m), raw);
    }

  private:
    int fd_;
    std::mutex mu_;
};

// The calls running on their threads: the plugin is destroyed only once none does.
class Running {
  public:
    void enter() {
        std::lock_guard lock(mu_);
        ++n_;
    }
    void leave() {
        std::lock_guard lock(mu_);
        --n_;
        cv_.notify_all();
    }
    bool wait_idle(std::chrono::seconds grace) {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, grace, [&] { return n_ == 0; });
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    int n_ = 0;
};

void run_execute(PluginModule &m, Outbox &out, const nlohmann::json &msg, const std::string &action_json) {
    const uint64_t id = msg.value("id", uint64_t{0});
    const std::string action = msg.value("action", std::string()), session = msg.value("session", std::string()),
                      cwd = msg.value("cwd", std::string()), request_id = msg.value("request_id", std::string());
    ah_call call;
    call.session = session;
    call.relay = [&out, id](int stream, std::string_view chunk) {
        out.send({{"t", "partial"}, {"id", id}, {"stream", stream}}, chunk);
    };
    ah_action_call_t c{};
    c.struct_size = sizeof c;
    c.call = &call;
    c.action_json = ah_bytes_t{action_json.data(), action_json.size()};
    c.action = action.c_str();
    c.session = session.c_str();
    c.cwd = cwd.c_str();
    c.request_id = request_id.c_str();
    ah_status_t st;
    {
        LiveCallGuard live(&call);
        PluginModule::Busy busy(m);
        st = m.execute(c);
    }
    const bool has = call.observation.has_value();
    out.send({{"t", "done"}, {"id", id}, {"status", st}, {"error", call.error}, {"has_observation", has}},
             has ? std::string_view(*call.observation) : std::string_view());
}

struct ReplyState {
    bool sent = false;
    int32_t status = 500;
    std::string content_type, body;
};

void run_route(PluginModule &m, Outbox &out, const nlohmann::json &msg, const std::string &body) {
    const uint64_t id = msg.value("id", uint64_t{0});
    const std::string method = msg.value("method", std::string()), path = msg.value("path", std::string()),
                      query = msg.value("query", std::string());
    ah_http_request_t rq{};
    rq.struct_size = sizeof rq;
    rq.method = method.c_str();
    rq.path = path.c_str();
    rq.query = query.c_str();
    rq.body = ah_bytes_t{body.data(), body.size()};
    ReplyState state;
    ah_http_reply_t rp{};
    rp.struct_size = sizeof rp;
    rp.reply_data = &state;
    rp.send = [](ah_http_reply_t *r, int32_t status, const char *content_type, ah_bytes_t b) {
        auto *s = static_cast<ReplyState *>(r->reply_data);
        if (s->sent) return;  // at most once, as the host's own reply
        s->sent = true;
        s->status = status;
        s->content_type = content_type ? content_type : "";
        s->body.assign(b.ptr ? b.ptr : "", b.ptr ? b.len : 0);
    };
    ah_status_t st;
    {
        PluginModule::Busy busy(m);
        st = m.http_routes() ? m.handle_http(rq, rp) : AH_ERR_UNSUPPORTED;
    }
    out.send({{"t", "reply"}, {"id", id}, {"status", st}, {"error", st == AH_OK ? std::string() : m.take_error()},
              {"sent", state.sent}, {"http_status", state.status}, {"content_type", state.content_type}},
             state.body);
}

// The streamed routes running here: each reply call waits for the host's status of it ("s_status"), so a
// plugin's write returns AH_ERR_IO as soon as the client has gone, exactly as in the host, and a slow
// client slows the plugin instead of filling the host's memory.
class StreamCalls {
  public:
    // Sends one reply call of route `id` (with `raw` bytes after it when given) and waits for the host's
    // status; AH_ERR_IO once the host is gone.
    ah_status_t call(Outbox &out, uint64_t id, const nlohmann::json &m, std::optional<std::string_view> raw = std::nullopt) {
        {
            std::lock_guard lock(mu_);
            if (host_gone_) return AH_ERR_IO;
            status_[id].reset();
        }
        if (raw) out.send(m, *raw);
        else out.send(m);
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return host_gone_ || status_[id].has_value(); });
        return host_gone_ ? AH_ERR_IO : *status_[id];
    }
    void answered(uint64_t id, ah_status_t status) {
        std::lock_guard lock(mu_);
        if (auto it = status_.find(id); it != status_.end()) it->second = status;
        cv_.notify_all();
    }
    void ended(uint64_t id) {
        std::lock_guard lock(mu_);
        status_.erase(id);
    }
    void host_gone() {
        std::lock_guard lock(mu_);
        host_gone_ = true;
        cv_.notify_all();
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::map<uint64_t, std::optional<ah_status_t>> status_;
    bool host_gone_ = false;
};

struct StreamReplyState {
    Outbox *out;
    StreamCalls *calls;
    uint64_t id;
};

void run_stream_route(PluginModule &m, Outbox &out, StreamCalls &calls, const nlohmann::json &msg, const std::string &body) {
    const uint64_t id = msg.value("id", uint64_t{0});
    const std::string method = msg.value("method", std::string()), path = msg.value("path", std::string()),
                      query = msg.value("query", std::string()), remote = msg.value("remote_address", std::string());
    std::vector<std::pair<std::string, std::string>> header_text;
    if (const auto it = msg.find("headers"); it != msg.end() && it->is_array())
        for (const auto &h : *it)
            if (h.is_array() && h.size() == 2 && h[0].is_string() && h[1].is_string())
                header_text.emplace_back(h[0].get<std::string>(), h[1].get<std::string>());
    std::vector<ah_http_header_t> headers;
    for (const auto &[name, value] : header_text) headers.push_back({name.c_str(), value.c_str()});
    ah_http_stream_request_t rq{sizeof rq, method.c_str(), path.c_str(), query.c_str(), ah_bytes_t{body.data(), body.size()},
                                headers.data(), headers.size(), remote.c_str()};
    StreamReplyState state{&out, &calls, id};
    ah_http_stream_reply_t rp{};
    rp.struct_size = sizeof rp;
    rp.reply_data = &state;
    rp.set_header = [](ah_http_stream_reply_t *r, const char *name, const char *value) -> ah_status_t {
        auto *s = static_cast<StreamReplyState *>(r->reply_data);
        if (name == nullptr || value == nullptr) return AH_ERR_INVALID_ARGUMENT;
        return s->calls->call(*s->out, s->id, {{"t", "s_hdr"}, {"id", s->id}, {"name", name}, {"value", value}});
    };
    rp.send = [](ah_http_stream_reply_t *r, int32_t status, const char *content_type, ah_bytes_t b) -> ah_status_t {
        auto *s = static_cast<StreamReplyState *>(r->reply_data);
        if (b.ptr == nullptr && b.len != 0) return AH_ERR_INVALID_ARGUMENT;
        return s->calls->call(*s->out, s->id,
                              {{"t", "s_send"}, {"id", s->id}, {"status", status}, {"content_type", content_type ? content_type : ""}},
                              std::string_view(b.ptr ? b.ptr : "", b.len));
    };
    rp.begin_stream = [](ah_http_stream_reply_t *r, int32_t status, const char *content_type) -> ah_status_t {
        auto *s = static_cast<StreamReplyState *>(r->reply_data);
        return s->calls->call(*s->out, s->id,
                              {{"t", "s_begin"}, {"id", s->id}, {"status", status}, {"content_type", content_type ? content_type : ""}});
    };
    rp.write = [](ah_http_stream_reply_t *r, ah_bytes_t chunk) -> ah_status_t {
        auto *s = static_cast<StreamReplyState *>(r->reply_data);
        if (chunk.ptr == nullptr && chunk.len != 0) return AH_ERR_INVALID_ARGUMENT;
        return s->calls->call(*s->out, s->id, {{"t", "s_write"}, {"id", s->id}},
                              std::string_view(chunk.ptr ? chunk.ptr : "", chunk.len));
    };
    ah_status_t st;
    {
        PluginModule::Busy busy(m);
        st = m.http_stream_routes() ? m.handle_http_stream(rq, rp) : AH_ERR_UNSUPPORTED;
    }
    calls.ended(id);
    out.send({{"t", "reply"}, {"id", id}, {"status", st}, {"error", st == AH_OK ? std::string() : m.take_error()}, {"sent", false}});
}

}  // namespace

int run_plugin_worker(int fd) {
    // A host that dies closes its end of the socket: read_frame fails and the worker ends (the host also
    // started it with PR_SET_PDEATHSIG).
    auto init_text = read_frame(fd, std::nullopt);
    if (!init_text) return 1;
    const auto init = nlohmann::json::parse(init_text.value(), nullptr, false);
    if (!init.is_object()) return 1;
    Outbox out(fd);
    HostEnvironment env(HostEnvironment::facts_from_worker_init(init), HostEnvironment::settings_from_worker_init(init));
    auto manifest = modules::read_manifest(init.value("manifest", std::string()));
    if (!manifest) {
        out.send({{"ok", false}, {"error", manifest.error().message}});
        return 1;
    }
    const std::string name = manifest.value().name;
    // The host prefixes its plugin's name to each line; other speakers keep theirs.
    env.forward_log = [&out, name](ah_log_level_t level, const std::string &who, const std::string &msg) {
        out.send({{"t", "log"}, {"level", static_cast<int>(level)}, {"msg", who == name ? msg : "[" + who + "] " + msg}});
    };
    auto loaded = PluginModule::load(manifest.value(), env);
    if (!loaded) {
        out.send({{"ok", false}, {"error", loaded.error().message}});
        return 1;
    }
    std::unique_ptr<PluginModule> m = std::move(loaded).value();
    nlohmann::json routes = nlohmann::json::array();
    for (const auto &r : m->manifest().http_routes)
        if (m->answers(r)) routes.push_back(r);  // through either route extension
    out.send({{"ok", true}, {"pid", ::getpid()}, {"routes", routes}, {"stream_routes", m->http_stream_routes() != nullptr}});

    Running running;
    StreamCalls stream_calls;
    for (;;) {
        auto text = read_frame(fd, std::nullopt);
        if (!text) break;  // the host closed the socket (destroy) or died
        const auto msg = nlohmann::json::parse(text.value(), nullptr, false);
        if (!msg.is_object()) break;
        std::string raw;
        if (msg.value("raw", false)) {
            auto r = read_frame(fd, std::nullopt);
            if (!r) break;
            raw = std::move(r).value();
        }
        const std::string t = msg.value("t", std::string());
        if (t == "shutdown") {
            m->shutdown();
        } else if (t == "s_status") {
            stream_calls.answered(msg.value("id", uint64_t{0}), msg.value("status", static_cast<ah_status_t>(AH_ERR_IO)));
        } else if (t == "execute" || t == "route" || t == "stream_route") {
            running.enter();
            std::thread([&m, &out, &running, &stream_calls, msg, raw = std::move(raw), t] {
                if (t == "execute") run_execute(*m, out, msg, raw);
                else if (t == "route") run_route(*m, out, msg, raw);
                else run_stream_route(*m, out, stream_calls, msg, raw);
                running.leave();
            }).detach();
        }
    }
    stream_calls.host_gone();  // a reply call waiting for the host's status gets AH_ERR_IO: its handle ends
    m->shutdown();
    // Never destroyed under a running call (plugin.h's promise); the host kills us past its own grace.
    const char *grace = std::getenv("ACTIONHOST_SHUTDOWN_GRACE_SECONDS");
    if (!running.wait_idle(std::chrono::seconds(grace ? std::atoi(grace) : 30))) std::_Exit(0);
    m.reset();
    return 0;
}

}  // namespace actionhost::host
