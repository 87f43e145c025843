// The host's side of an isolated plugin: the proxy ah_plugin_t (see isolated_plugin.hpp).
#include "modules/isolated_plugin.hpp"

#include <signal.h>
#include <sys/socket.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/ext/http_routes.h>
#include <actionhost/ext/http_stream_routes.h>
#include <actionhost/ext/partial_streams.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sys/worker_spawn.hpp"
#include "sys/worker_wire.hpp"

namespace actionhost::host {
namespace {

using Clock = std::chrono::steady_clock;

// One worker process and the thread reading its messages.
struct Worker {
    WorkerChannel ch;
    pid_t pid = -1;
    std::mutex write_mu;  // one message (and its raw frame) at a time on the socket
    std::thread reader;
    bool alive = true;        // guarded by IsolatedPlugin::mu_
    std::string kill_reason;  // guarded by IsolatedPlugin::mu_: why the host killed it, for the other calls
};

// One call of a streamed route's reply made in the worker (set_header, send, begin_stream, write), to be
// made on the real reply by the thread running the route's handle.
struct StreamOp {
    std::string t;  // "s_hdr", "s_send", "s_begin", "s_write"
    nlohmann::json m;
    std::string raw;
};

// One forwarded call waiting for its answer.
struct Pending {
    ah_call_t *call = nullptr;  // execute's; null for a route
    std::shared_ptr<Worker> worker;
    bool done = false;
    int32_t status = AH_ERR_INTERNAL;
    std::optional<std::string> observation;
    std::string error;
    // a route's reply
    bool sent = false;
    int32_t http_status = 500;
    std::string content_type, body;
    // a streamed route's reply calls, in the order the plugin made them
    std::deque<StreamOp> ops;
};

class IsolatedPlugin {
  public:
    IsolatedPlugin(const ah_host_t *host, IsolationSettings s) : host_(host), s_(std::move(s)) {
        c_.struct_size = sizeof c_;
        c_.plugin_data = this;
        c_.init = [](ah_plugin_t *p) { return self(p)->init(); };
        c_.execute = [](ah_plugin_t *p, const ah_action_call_t *call) { return self(p)->execute(*call); };
        c_.shutdown = [](ah_plugin_t *p) { self(p)->shutdown(); };
        c_.destroy = [](ah_plugin_t *p) { delete self(p); };
        c_.get_extension = [](const ah_plugin_t *p, const char *id) -> const void * {
            auto *me = static_cast<IsolatedPlugin *>(p->plugin_data);
            if (id == nullptr || !me->has_routes_) return nullptr;
            // The worker's plugin answers its routes through one of the two extensions: the proxy offers that one.
            if (std::strcmp(id, AH_EXT_HTTP_ROUTES) == 0 && !me->stream_routes_offered_) return &me->routes_;
            if (std::strcmp(id, AH_EXT_HTTP_STREAM_ROUTES) == 0 && me->stream_routes_offered_) return &me->stream_routes_;
            return nullptr;
        };
        routes_.struct_size = sizeof routes_;
        routes_.handle = [](ah_plugin_t *p, const ah_http_request_t *rq, ah_http_reply_t *rp) {
            return self(p)->handle(*rq, *rp);
        };
        stream_routes_.struct_size = sizeof stream_routes_;
        stream_routes_.handle = [](ah_plugin_t *p, const ah_http_stream_request_t *rq, ah_http_stream_reply_t *rp) {
            return self(p)->handle_stream(*rq, *rp);
        };
        if (host_->get_extension != nullptr)
            streams_ext_ = static_cast<const ah_ext_partial_streams_t *>(host_->get_extension(host_, AH_EXT_PARTIAL_STREAMS));
    }
    ~IsolatedPlugin() { stop_worker(); }

    ah_plugin_t *plugin() { return &c_; }

  private:
    static IsolatedPlugin *self(ah_plugin_t *p) { return static_cast<IsolatedPlugin *>(p->plugin_data); }
    void log(ah_log_level_t level, const std::string &msg) const { host_->log(host_, level, msg.c_str()); }

    ah_status_t init() {
        std::lock_guard lock(mu_);
        if (auto started = start_locked(); !started) {
            host_->set_error(host_, nullptr, started.error().message.c_str());
            return AH_ERR_IO;
        }
        return AH_OK;
    }

    // Spawns the worker, has it load the plugin, reads its answer (relaying the log lines the plugin
    // writes while it starts), then starts the reader.
    common::Status start_locked() {
        auto spawned = spawn_worker(s_.program, "--plugin-worker");
        if (!spawned) return spawned.as_failure();
        auto w = std::make_shared<Worker>();
        w->ch = std::move(spawned).value();
        w->pid = w->ch.child->pid();
        const nlohmann::json init = {{"manifest", s_.manifest_path}, {"facts", s_.facts}, {"settings", s_.settings}};
        std::string why;
        if (auto sent = write_frame(w->ch.fd.get(), common::dump_json(init)); !sent) why = sent.error().message;
        nlohmann::json reply;
        const auto deadline = Clock::now() + s_.start_timeout;
        while (why.empty()) {
            auto text = read_frame(w->ch.fd.get(), deadline);
            if (!text) {
                why = text.error().message == "closed" ? "its process ended while loading it" : text.error().message;
                break;
            }
            reply = nlohmann::json::parse(text.value(), nullptr, false);
            if (!reply.is_object()) why = "its process answered something that is not a message";
            else if (reply.value("t", std::string()) == "log") relay_log(reply);
            else break;
        }
        if (why.empty() && !reply.value("ok", false)) why = reply.value("error", std::string("its process gave no reason"));
        if (!why.empty()) {
            w->ch.child->signal_group(SIGKILL);
            if (auto st = w->ch.child->wait(std::chrono::seconds(5)); st && why.find("ended") != std::string::npos)
                why += " (it " + st->describe() + ")";
            return common::fail("the plugin's worker process could not start it: " + why);
        }
        if (!routes_set_) {  // the first worker's routes are the plugin's for its life (the proxy's extension)
            routes_set_ = true;
            const nlohmann::json routes = reply.contains("routes") ? reply["routes"] : nlohmann::json::array();
            for (const auto &p : routes)
                if (p.is_string()) route_paths_.push_back(p.get<std::string>());
            for (const auto &p : route_paths_) route_cptrs_.push_back(p.c_str());
            route_cptrs_.push_back(nullptr);
            routes_.paths = route_cptrs_.data();
            stream_routes_.paths = route_cptrs_.data();
            has_routes_ = route_paths_.size() > 0;
            stream_routes_offered_ = reply.value("stream_routes", false);
        }
        w->reader = std::thread([this, w] { read_loop(w); });
        worker_ = std::move(w);
        return common::ok();
    }

    // The worker for the next call: the running one, or a new one within the restart budget.
    common::Status ready_locked() {
        if (stopping_) return common::fail("the plugin is shutting down");
        if (!unavailable_.empty()) return common::fail(unavailable_);
        if (worker_ && worker_->alive && worker_->kill_reason.empty()) return common::ok();
        // A worker being killed (a call missed its deadline) takes no new call, even before its reader has
        // seen it end: it is retired, its reader still answers the calls it had.
        if (worker_ && worker_->alive) retired_.push_back(std::move(worker_));
        else if (worker_ && worker_->reader.joinable()) worker_->reader.join();  // it touches nothing of ours once dead
        worker_.reset();
        for (auto it = retired_.begin(); it != retired_.end();) {
            if ((*it)->alive) {
                ++it;
                continue;
            }
            if ((*it)->reader.joinable()) (*it)->reader.join();
            it = retired_.erase(it);
        }
        const auto now = Clock::now();
        while (!restarts_.empty() && now - restarts_.front() > s_.restart_window) restarts_.pop_front();
        if (static_cast<int>(restarts_.size()) >= s_.restart_budget) {
            unavailable_ = "the plugin's process ended " + std::to_string(restarts_.size() + 1) + " times within " +
                           std::to_string(s_.restart_window.count()) +
                           " s; it is not started again: the plugin is unavailable until the host restarts";
            log(AH_LOG_ERROR, unavailable_);
            return common::fail(unavailable_);
        }
        restarts_.push_back(now);
        if (auto started = start_locked(); !started) return started;
        log(AH_LOG_WARNING, "its process was started again (pid " + std::to_string(worker_->pid) + ")");
        return common::ok();
    }

    void relay_log(const nlohmann::json &m) const {
        const int level = m.value("level", static_cast<int>(AH_LOG_INFO));
        const bool valid = level >= AH_LOG_DEBUG && level <= AH_LOG_PLUGIN_MISBEHAVING;
        log(valid ? static_cast<ah_log_level_t>(level) : AH_LOG_INFO, m.value("msg", std::string()));
    }

    void read_loop(const std::shared_ptr<Worker> &w) {
        const int fd = w->ch.fd.get();
        for (;;) {
            auto text = read_frame(fd, std::nullopt);
            if (!text) break;
            const auto m = nlohmann::json::parse(text.value(), nullptr, false);
            if (!m.is_object()) break;  // not our protocol: the worker is treated as dead (and killed)
            std::string raw;
            if (m.value("raw", false)) {
                auto r = read_frame(fd, std::nullopt);
                if (!r) break;
                raw = std::move(r).value();
            }
            dispatch(m, std::move(raw));
        }
        bool stopping;
        {
            std::lock_guard lock(mu_);
            stopping = stopping_;
        }
        auto st = w->ch.child->wait(stopping ? s_.grace : std::chrono::seconds(2));
        if (!st) {
            w->ch.child->signal_group(SIGKILL);
            st = w->ch.child->wait(std::chrono::seconds(5));
        }
        const std::string how = st ? st->describe() : "did not end when its socket closed, and was killed";
        int failed = 0;
        std::string kill_reason;
        {
            std::lock_guard lock(mu_);
            w->alive = false;
            kill_reason = w->kill_reason;
            const std::string why =
                w->kill_reason.empty()
                    ? "the plugin's process (pid " + std::to_string(w->pid) + ") " + how + " during this call"
                    : "the plugin's process (pid " + std::to_string(w->pid) + ") was killed during this call: " + w->kill_reason;
            for (auto &[_, p] : pending_)
                if (p->worker == w && !p->done) {
                    p->done = true;
                    p->status = AH_ERR_IO;
                    p->observation.reset();
                    p->error = why + "; it is started again for the next call";
                    ++failed;
                }
        }
        cv_.notify_all();
        if (!stopping || failed > 0)
            log(AH_LOG_ERROR, "its process (pid " + std::to_string(w->pid) + ") " + how + " with " + std::to_string(failed) +
                                  " call(s) running" + (kill_reason.empty() ? "" : " (" + kill_reason + ")") +
                                  "; it is started again for the next call");
    }

    void dispatch(const nlohmann::json &m, std::string raw) {
        const std::string t = m.value("t", std::string());
        if (t == "log") return relay_log(m);
        const uint64_t id = m.value("id", uint64_t{0});
        std::lock_guard lock(mu_);
        auto it = pending_.find(id);
        if (it == pending_.end() || it->second->done) return;  // a call that already timed out
        Pending &p = *it->second;
        if (t == "partial" && p.call != nullptr) {
            // Under mu_: the call cannot return (and its ah_call end) while its chunk is relayed.
            const int stream = m.value("stream", 0);
            const ah_bytes_t chunk{raw.data(), raw.size()};
            if (stream == 0 || streams_ext_ == nullptr) host_->emit_partial(host_, p.call, chunk);
            else streams_ext_->emit_partial_stream(host_, p.call, stream, chunk);
        } else if (t == "s_hdr" || t == "s_send" || t == "s_begin" || t == "s_write") {
            p.ops.push_back(StreamOp{t, m, std::move(raw)});
            cv_.notify_all();
        } else if (t == "done" || t == "reply") {
            p.done = true;
            p.status = m.value("status", static_cast<int32_t>(AH_ERR_INTERNAL));
            p.error = m.value("error", std::string());
            if (t == "done" && m.value("has_observation", false)) p.observation = std::move(raw);
            if (t == "reply") {
                p.sent = m.value("sent", false);
                p.http_status = m.value("http_status", 500);
                p.content_type = m.value("content_type", std::string());
                p.body = std::move(raw);
            }
            cv_.notify_all();
        }
    }

    // Sends one call and waits for its answer until `wait`; a call past it has the worker killed. A
    // streamed route's reply calls (p.ops) are made with `on_op` on this thread as they come, each answered
    // to the worker with its status; once `on_op` says the response is streaming, there is no deadline: a
    // stream lives as long as its client listens (the plugin's shutdown ends it, as in the host).
    void forward(Pending &p, nlohmann::json message, std::string_view raw, std::chrono::seconds wait,
                 const std::function<ah_status_t(const StreamOp &, bool &streaming)> &on_op = nullptr) {
        uint64_t id;
        std::shared_ptr<Worker> w;
        {
            std::lock_guard lock(mu_);
            if (auto ready = ready_locked(); !ready) {
                p.status = AH_ERR_IO;
                p.error = ready.error().message;
                return;
            }
            id = next_id_++;
            w = p.worker = worker_;
            pending_[id] = &p;
        }
        message["id"] = id;
        message["raw"] = true;
        common::Status sent = common::ok();
        {
            std::lock_guard wl(w->write_mu);
            sent = write_frames(w->ch.fd.get(), common::dump_json(message), raw);
        }
        std::unique_lock lock(mu_);
        if (!sent && !p.done) {
            p.done = true;
            p.status = AH_ERR_IO;
            p.error = "the call could not be sent to the plugin's process: " + sent.error().message;
        }
        const auto deadline = Clock::now() + wait + s_.grace;
        bool streaming = false, answered = false;
        for (;;) {
            const auto ready = [&] { return p.done || !p.ops.empty(); };
            if (streaming) cv_.wait(lock, ready);
            else if (!cv_.wait_until(lock, deadline, ready)) break;
            if (p.ops.empty()) {
                answered = true;
                break;
            }
            StreamOp op = std::move(p.ops.front());
            p.ops.pop_front();
            lock.unlock();
            const ah_status_t st = on_op ? on_op(op, streaming) : AH_ERR_UNSUPPORTED;
            {
                std::lock_guard wl(w->write_mu);
                (void)write_frame(w->ch.fd.get(), common::dump_json({{"t", "s_status"}, {"id", id}, {"status", st}}));
            }
            lock.lock();
        }
        pending_.erase(id);
        if (answered) return;
        p.done = true;
        p.status = AH_ERR_TIMEOUT;
        const std::string secs = std::to_string((wait + s_.grace).count());
        p.error = "the plugin did not answer within " + secs + " s; its process (pid " + std::to_string(w->pid) +
                  ") is killed and started again for the next call";
        if (w->alive && w->kill_reason.empty()) w->kill_reason = "another call of the plugin did not answer within " + secs + " s";
        lock.unlock();
        log(AH_LOG_ERROR, "a call did not answer within " + secs + " s: killing its process (pid " + std::to_string(w->pid) + ")");
        w->ch.child->signal_group(SIGKILL);
    }

    // The action's own "timeout" (seconds, in the envelope) where it has one.
    std::chrono::seconds deadline_of(std::string_view action_json) const {
        const auto j = nlohmann::json::parse(action_json, nullptr, false);
        if (j.is_object())
            if (auto it = j.find("timeout"); it != j.end() && it->is_number() && it->get<double>() > 0)
                return std::chrono::seconds(static_cast<long>(it->get<double>()) + 1);
        return s_.default_timeout;
    }

    ah_status_t execute(const ah_action_call_t &call) {
        Pending p;
        p.call = call.call;
        const std::string_view json(call.action_json.ptr ? call.action_json.ptr : "", call.action_json.len);
        nlohmann::json message = {{"t", "execute"}, {"action", call.action ? call.action : ""},
                                  {"session", call.session ? call.session : ""}, {"cwd", call.cwd ? call.cwd : ""},
                                  {"request_id", call.request_id ? call.request_id : ""}};
        forward(p, std::move(message), json, deadline_of(json));
        if (p.observation) host_->set_observation(host_, call.call, ah_bytes_t{p.observation->data(), p.observation->size()});
        if (!p.error.empty()) host_->set_error(host_, call.call, p.error.c_str());
        return p.status;
    }

    ah_status_t handle(const ah_http_request_t &rq, ah_http_reply_t &rp) {
        Pending p;
        nlohmann::json message = {{"t", "route"}, {"method", rq.method ? rq.method : ""}, {"path", rq.path ? rq.path : ""},
                                  {"query", rq.query ? rq.query : ""}};
        forward(p, std::move(message), std::string_view(rq.body.ptr ? rq.body.ptr : "", rq.body.len), s_.default_timeout);
        if (p.sent) rp.send(&rp, p.http_status, p.content_type.c_str(), ah_bytes_t{p.body.data(), p.body.size()});
        if (!p.error.empty()) host_->set_error(host_, nullptr, p.error.c_str());
        return p.status;
    }

    // A streamed route: the worker's plugin gets a reply whose every call comes here to be made on `rp`
    // (plugin_worker_main.cpp), so headers, a complete answer or a stream reach the client as the plugin
    // makes them, and write reports the client's departure as it happens.
    ah_status_t handle_stream(const ah_http_stream_request_t &rq, ah_http_stream_reply_t &rp) {
        Pending p;
        nlohmann::json headers = nlohmann::json::array();
        for (size_t i = 0; i < rq.header_count; ++i)
            headers.push_back({rq.headers[i].name ? rq.headers[i].name : "", rq.headers[i].value ? rq.headers[i].value : ""});
        nlohmann::json message = {{"t", "stream_route"}, {"method", rq.method ? rq.method : ""}, {"path", rq.path ? rq.path : ""},
                                  {"query", rq.query ? rq.query : ""}, {"headers", std::move(headers)},
                                  {"remote_address", rq.remote_address ? rq.remote_address : ""}};
        const auto on_op = [&rp](const StreamOp &op, bool &streaming) -> ah_status_t {
            const ah_bytes_t raw{op.raw.data(), op.raw.size()};
            if (op.t == "s_hdr")
                return rp.set_header(&rp, op.m.value("name", std::string()).c_str(), op.m.value("value", std::string()).c_str());
            const int32_t status = op.m.value("status", 500);
            const std::string type = op.m.value("content_type", std::string());
            if (op.t == "s_send") return rp.send(&rp, status, type.c_str(), raw);
            if (op.t == "s_begin") {
                const ah_status_t st = rp.begin_stream(&rp, status, type.c_str());
                if (st == AH_OK) streaming = true;
                return st;
            }
            return rp.write(&rp, raw);
        };
        forward(p, std::move(message), std::string_view(rq.body.ptr ? rq.body.ptr : "", rq.body.len), s_.default_timeout, on_op);
        if (!p.error.empty()) host_->set_error(host_, nullptr, p.error.c_str());
        return p.status;
    }

    // Running calls must return promptly: the worker's plugin is asked to stop as the host would ask it.
    void shutdown() {
        std::shared_ptr<Worker> w;
        {
            std::lock_guard lock(mu_);
            stopping_ = true;
            if (worker_ && worker_->alive) w = worker_;
        }
        if (!w) return;
        std::lock_guard wl(w->write_mu);
        (void)write_frame(w->ch.fd.get(), common::dump_json({{"t", "shutdown"}}));
    }

    // Destroy: every call has returned. Closing our side tells the worker to destroy its plugin and end;
    // the reader waits for that (a grace), then kills what is left.
    void stop_worker() {
        std::shared_ptr<Worker> w;
        std::vector<std::shared_ptr<Worker>> retired;
        {
            std::lock_guard lock(mu_);
            stopping_ = true;
            w = std::move(worker_);
            retired.swap(retired_);
        }
        for (auto &r : retired)  // killed already: their readers end as the kill lands
            if (r->reader.joinable()) r->reader.join();
        if (!w) return;
        ::shutdown(w->ch.fd.get(), SHUT_WR);
        if (w->reader.joinable()) w->reader.join();
    }

    ah_plugin_t c_{};
    const ah_host_t *host_;
    const ah_ext_partial_streams_t *streams_ext_ = nullptr;
    IsolationSettings s_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::shared_ptr<Worker> worker_;
    std::vector<std::shared_ptr<Worker>> retired_;  // killed, their readers not yet joined
    std::map<uint64_t, Pending *> pending_;
    uint64_t next_id_ = 1;
    std::deque<Clock::time_point> restarts_;
    std::string unavailable_;
    bool stopping_ = false;
    // The proxy's route extension, http_routes or http_stream_routes as the worker's plugin offers: the
    // paths it answers.
    bool routes_set_ = false, has_routes_ = false, stream_routes_offered_ = false;
    std::vector<std::string> route_paths_;
    std::vector<const char *> route_cptrs_;
    ah_ext_http_routes_t routes_{};
    ah_ext_http_stream_routes_t stream_routes_{};
};

}  // namespace

ah_plugin_t *create_isolated_plugin(const ah_host_t *host, IsolationSettings settings) {
    return (new IsolatedPlugin(host, std::move(settings)))->plugin();
}

}  // namespace actionhost::host
