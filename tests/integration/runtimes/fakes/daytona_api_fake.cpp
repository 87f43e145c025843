#include "daytona_api_fake.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <sstream>

namespace cloud_fakes {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const std::chrono::milliseconds kStep(250);

std::string iso_now() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", std::gmtime(&t));
    return buf;
}

std::vector<std::string> split_path(const std::string &path) {
    std::vector<std::string> parts;
    std::stringstream s(path);
    for (std::string p; std::getline(s, p, '/');)
        if (!p.empty()) parts.push_back(p);
    return parts;
}

}  // namespace

struct DaytonaApiFake::Sandbox {
    std::string id, state, target, snapshot, error_reason, token, created_at;
    json env = json::object(), labels = json::object();
    bool is_public = false;
    long auto_stop = 15, auto_archive = 10080, auto_delete = -1;  // minutes (Daytona's defaults)
    Clock::time_point last_activity, stopped_at;
    std::unique_ptr<ProcessBox> box;
    std::map<int, std::unique_ptr<TunnelProxy>> previews;
    std::map<std::string, std::vector<std::string>> sessions;  // session → command ids
    std::map<std::string, json> commands;                      // cmdId → {id, command, exitCode?, output}
    Clock::time_point next;
    std::string fail_state, fail_reason;
};

DaytonaApiFake::DaytonaApiFake(std::string api_key, double minute_seconds) : key_(std::move(api_key)), minute_s_(minute_seconds) {
    scheduler_ = std::thread([this] {
        while (!stopping_) {
            advance();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    server_ = std::make_unique<FakeHttpServer>([this](const FakeRequest &r) { return route(r); });
}

DaytonaApiFake::~DaytonaApiFake() {
    server_.reset();
    stopping_ = true;
    scheduler_.join();
    {
        std::lock_guard lock(mutex_);
        for (auto &[id, s] : boxes_)
            if (s->box) s->box->stop();  // ends the commands the workers wait for
    }
    for (auto &w : workers_) w.join();
}

void DaytonaApiFake::fail_next(const std::string &prefix, int status, int count) {
    std::lock_guard lock(mutex_);
    failures_.push_back({prefix, {status, count}});
}

void DaytonaApiFake::fail_next_sandbox(const std::string &state, const std::string &reason) {
    std::lock_guard lock(mutex_);
    fail_next_sandbox_ = {state, reason};
}

std::map<std::string, std::string> DaytonaApiFake::sandboxes() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::string> out;
    for (const auto &[id, s] : boxes_) out[id] = s->state;
    return out;
}

std::vector<std::string> DaytonaApiFake::live_sandboxes() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto &[id, s] : boxes_)
        if ((s->state != "destroyed" && s->state != "destroying") || (s->box && s->box->running_count() > 0)) out.push_back(id + " (" + s->state + ")");
    return out;
}

std::vector<std::string> DaytonaApiFake::requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
}

json DaytonaApiFake::last_create_body() const {
    std::lock_guard lock(mutex_);
    return last_create_;
}

FakeResponse DaytonaApiFake::error(int status, const std::string &path, const std::string &message) const {
    static const std::map<int, std::string> names = {{400, "Bad Request"}, {401, "Unauthorized"}, {403, "Forbidden"},
                                                     {404, "Not Found"},   {409, "Conflict"},     {500, "Internal Server Error"},
                                                     {502, "Bad Gateway"}, {503, "Service Unavailable"}};
    auto n = names.find(status);
    return FakeResponse::json(status, {{"statusCode", status},
                                    {"timestamp", iso_now()},
                                    {"path", path},
                                    {"error", n == names.end() ? "Error" : n->second},
                                    {"message", message}});
}

json DaytonaApiFake::dto(const Sandbox &s) const {
    json d = {{"id", s.id},         {"organizationId", "org-fake"}, {"user", "daytona"}, {"env", s.env},
              {"labels", s.labels}, {"public", s.is_public},        {"target", s.target}, {"cpu", 1},
              {"gpu", 0},           {"memory", 1},                  {"disk", 3},          {"state", s.state},
              {"autoStopInterval", s.auto_stop}, {"autoArchiveInterval", s.auto_archive}, {"autoDeleteInterval", s.auto_delete},
              {"runnerDomain", "127.0.0.1"}, {"createdAt", s.created_at}, {"updatedAt", iso_now()}};
    if (!s.snapshot.empty()) d["snapshot"] = s.snapshot;
    if (!s.error_reason.empty()) d["errorReason"] = s.error_reason;
    return d;
}

void DaytonaApiFake::set_state(Sandbox &s, const std::string &state) {
    s.state = state;
    bool up = state == "started";
    if (up) s.last_activity = Clock::now();  // its idle time starts with it
    if (state == "stopped") s.stopped_at = Clock::now();
    for (auto &[port, p] : s.previews) p->set_open(up);
    if (state == "stopped" || state == "destroyed" || state == "error" || state == "build_failed") {
        if (s.box) s.box->stop();
        s.sessions.clear();  // the toolbox daemon restarts with the sandbox
    }
    if (state == "destroyed") s.previews.clear();
}

void DaytonaApiFake::expire(Sandbox &s, Clock::time_point now) {
    auto minutes = [&](long m) { return std::chrono::duration<double>(static_cast<double>(m) * minute_s_); };
    if (s.state == "started" && s.auto_stop > 0) {
        Clock::time_point last = s.last_activity;
        bool busy = false;
        for (const auto &[port, p] : s.previews) {
            last = std::max(last, p->last_request());
            busy = busy || p->requests_in_flight() > 0;
        }
        if (!busy && now - last >= minutes(s.auto_stop)) {
            set_state(s, "stopping");
            s.box->stop();
            s.next = now + kStep;
        }
    } else if (s.state == "stopped") {
        if (s.auto_delete >= 0 && now - s.stopped_at >= minutes(s.auto_delete)) {
            set_state(s, "destroying");
            s.next = now + kStep;
        } else if (s.auto_archive > 0 && now - s.stopped_at >= minutes(s.auto_archive)) {
            set_state(s, "archiving");
            s.next = now + kStep;
        }
    }
}

void DaytonaApiFake::advance() {
    std::lock_guard lock(mutex_);
    auto now = Clock::now();
    for (auto &[id, sp] : boxes_) {
        Sandbox &s = *sp;
        expire(s, now);
        if (now < s.next) continue;
        if (s.state == "creating") {
            if (!s.fail_state.empty()) {
                s.error_reason = s.fail_reason;
                set_state(s, s.fail_state);
            } else {
                set_state(s, "started");
            }
        } else if (s.state == "starting") set_state(s, "started");
        else if (s.state == "stopping") set_state(s, "stopped");
        else if (s.state == "destroying") set_state(s, "destroyed");
        else if (s.state == "archiving") set_state(s, "archived");
    }
}

FakeResponse DaytonaApiFake::route(const FakeRequest &r) {
    std::unique_lock lock(mutex_);
    std::string line = r.method + " " + r.path;
    requests_.push_back(line);
    std::string auth = r.header("authorization");
    if (auth.size() < 7 || !std::equal(auth.begin(), auth.begin() + 7, "bearer ", [](char a, char b) { return std::tolower(a) == b; }) ||
        auth.substr(7) != key_)
        return error(401, r.path, "Invalid credentials");
    for (auto it = failures_.begin(); it != failures_.end(); ++it) {
        if (line.rfind(it->first, 0) != 0) continue;
        int status = it->second.first;
        if (--it->second.second <= 0) failures_.erase(it);
        return error(status, r.path, "injected failure");
    }
    auto parts = split_path(r.path);
    if (parts.size() < 2 || parts[0] != "api") return error(404, r.path, "Cannot " + line);
    auto find = [&](const std::string &id) -> Sandbox * {
        auto it = boxes_.find(id);
        return it == boxes_.end() || it->second->state == "destroyed" ? nullptr : it->second.get();
    };

    if (parts[1] == "toolbox" && parts.size() >= 4 && parts[3] == "toolbox") {
        Sandbox *s = find(parts[2]);
        if (!s) return error(404, r.path, "Sandbox with ID " + parts[2] + " not found");
        if (s->state != "started") return error(400, r.path, "Sandbox is not started");
        s->last_activity = Clock::now();  // a toolbox call is activity
        return toolbox(r, *s, std::vector<std::string>(parts.begin() + 4, parts.end()));
    }
    if (parts[1] != "sandbox") return error(404, r.path, "Cannot " + line);

    if (parts.size() == 2 && r.method == "POST") {
        json b = r.json();
        if (!b.is_object()) return error(400, r.path, "body must be a JSON object");
        for (const char *k : {"autoStopInterval", "autoArchiveInterval", "autoDeleteInterval"})
            if (b.contains(k) && !b[k].is_number_integer()) return error(400, r.path, std::string(k) + " must be an integer (minutes)");
        if (b.value("autoStopInterval", 0) < 0 || b.value("autoArchiveInterval", 0) < 0)
            return error(400, r.path, "autoStopInterval and autoArchiveInterval must not be negative");
        last_create_ = b;
        auto s = std::make_shared<Sandbox>();
        s->id = "sbx-" + std::to_string(next_id_++);
        s->env = b.value("env", json::object());
        s->labels = b.value("labels", json::object());
        s->is_public = b.value("public", false);
        s->target = b.value("target", "us");
        s->snapshot = b.value("snapshot", "");
        s->auto_stop = b.value("autoStopInterval", 15L);
        s->auto_archive = b.value("autoArchiveInterval", 10080L);
        s->auto_delete = b.value("autoDeleteInterval", -1L);
        s->created_at = iso_now();
        s->token = "tok-" + s->id;
        s->box = std::make_unique<ProcessBox>(s->id);
        s->fail_state = fail_next_sandbox_.first;
        s->fail_reason = fail_next_sandbox_.second;
        fail_next_sandbox_ = {};
        s->next = Clock::now() + kStep;
        set_state(*s, "creating");
        boxes_[s->id] = s;
        return FakeResponse::json(200, dto(*s));
    }
    if (parts.size() == 2 && r.method == "GET") {
        json want = json::object();
        if (r.params.count("labels")) {
            want = json::parse(r.params.at("labels"), nullptr, false);
            if (!want.is_object()) return error(400, r.path, "labels must be a JSON object");
        }
        json out = json::array();
        for (const auto &[id, s] : boxes_) {
            if (s->state == "destroyed") continue;
            bool match = true;
            for (auto &[k, v] : want.items()) match = match && s->labels.contains(k) && s->labels[k] == v;
            if (match) out.push_back(dto(*s));
        }
        return FakeResponse::json(200, out);
    }
    Sandbox *sp = find(parts[2]);
    if (!sp) return error(404, r.path, "Sandbox with ID " + parts[2] + " not found");
    Sandbox &s = *sp;
    auto in_progress = [&] {
        return s.state == "creating" || s.state == "starting" || s.state == "stopping" || s.state == "destroying" ||
               s.state == "archiving";
    };
    if (parts.size() == 3 && r.method == "GET") return FakeResponse::json(200, dto(s));
    if (parts.size() == 3 && r.method == "DELETE") {
        if (in_progress() && r.params.count("force") == 0) return error(400, r.path, "State change in progress");
        set_state(s, "destroying");
        s.box->stop();
        s.next = Clock::now() + kStep;
        return FakeResponse::json(200, dto(s));
    }
    std::string verb = parts.size() > 3 ? parts[3] : "";
    if (verb == "start" && r.method == "POST") {
        if (s.state != "stopped" && s.state != "archived") return error(400, r.path, "Sandbox is not in valid state (" + s.state + ")");
        set_state(s, "starting");
        s.next = Clock::now() + kStep;
        // The server waits (up to ~30 s) for the sandbox to be started before answering.
        for (int i = 0; i < 600 && s.state == "starting"; ++i) {
            lock.unlock();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            lock.lock();
        }
        return FakeResponse::json(200, dto(s));
    }
    if (verb == "stop" && r.method == "POST") {
        if (s.state != "started") return error(400, r.path, "Sandbox is not started");
        set_state(s, "stopping");
        s.box->stop();
        s.next = Clock::now() + kStep;
        return FakeResponse::json(200, json());
    }
    if (verb == "archive" && r.method == "POST") {
        if (s.state != "stopped") return error(400, r.path, "Sandbox is not stopped");
        set_state(s, "archiving");
        s.next = Clock::now() + kStep;
        return FakeResponse::json(200, json());
    }
    if (verb == "labels" && r.method == "PUT") {
        json b = r.json();
        if (!b.is_object() || !b.contains("labels") || !b["labels"].is_object()) return error(400, r.path, "labels must be an object");
        s.labels = b["labels"];
        return FakeResponse::json(200, {{"labels", s.labels}});
    }
    if (verb == "ports" && parts.size() == 6 && parts[5] == "preview-url" && r.method == "GET") {
        int port = 0;
        try {
            port = std::stoi(parts[4]);
        } catch (...) {
        }
        if (port < 1 || port > 65535) return error(400, r.path, "Invalid port");
        if (!s.previews.count(port)) {
            s.previews[port] = std::make_unique<TunnelProxy>(port, "X-Daytona-Preview-Token", s.is_public ? "" : s.token);
            s.previews[port]->set_open(s.state == "started");
        }
        return FakeResponse::json(200, {{"url", s.previews[port]->url()}, {"token", s.token}});
    }
    return error(404, r.path, "Cannot " + line);
}

FakeResponse DaytonaApiFake::toolbox(const FakeRequest &r, Sandbox &s, const std::vector<std::string> &rest) {
    std::map<std::string, std::string> env;
    for (auto &[k, v] : s.env.items()) env[k] = v.is_string() ? v.get<std::string>() : v.dump();
    if (rest.size() == 2 && rest[0] == "process" && rest[1] == "execute" && r.method == "POST") {
        json b = r.json();
        if (!b.is_object() || b.value("command", "").empty()) return error(400, r.path, "command is required");
        auto res = s.box->run(b["command"].get<std::string>(), env, b.value("timeout", 360));
        return FakeResponse::json(200, {{"exitCode", res.exit_code}, {"result", res.output}});
    }
    if (rest.size() < 2 || rest[0] != "process" || rest[1] != "session") return error(404, r.path, "Cannot " + r.method + " " + r.path);
    if (rest.size() == 2 && r.method == "POST") {
        std::string id = r.json().value("sessionId", "");
        if (id.empty()) return error(400, r.path, "sessionId is required");
        if (s.sessions.count(id)) return error(409, r.path, "session already exists");
        s.sessions[id] = {};
        return FakeResponse::json(200, json());
    }
    if (rest.size() < 3) return error(404, r.path, "Cannot " + r.method + " " + r.path);
    auto session = s.sessions.find(rest[2]);
    if (session == s.sessions.end()) return error(404, r.path, "session not found");
    if (rest.size() == 3 && r.method == "GET") {
        json cmds = json::array();
        for (const auto &c : session->second) cmds.push_back(s.commands[c]);
        return FakeResponse::json(200, {{"sessionId", rest[2]}, {"commands", cmds}});
    }
    if (rest.size() == 3 && r.method == "DELETE") {
        s.sessions.erase(session);
        return FakeResponse::json(200, json());
    }
    if (rest.size() == 4 && rest[3] == "exec" && r.method == "POST") {
        json b = r.json();
        std::string command = b.is_object() ? b.value("command", "") : "";
        if (command.empty()) return error(400, r.path, "command is required");
        bool async = b.value("runAsync", false) || b.value("async", false);
        std::string cmd_id = "cmd-" + std::to_string(next_id_++);
        s.commands[cmd_id] = {{"id", cmd_id}, {"command", command}};
        session->second.push_back(cmd_id);
        if (!async) {
            auto res = s.box->run(command, env, 360);
            s.commands[cmd_id]["exitCode"] = res.exit_code;
            s.commands[cmd_id]["output"] = res.output;
            return FakeResponse::json(200, {{"cmdId", cmd_id}, {"output", res.output}, {"exitCode", res.exit_code}});
        }
        ProcessBox *box = s.box.get();
        json *record = &s.commands[cmd_id];  // std::map nodes are stable; the sandbox outlives the workers
        workers_.emplace_back([this, box, record, command, env] {
            auto res = box->run(command, env, 3600);
            std::lock_guard l(mutex_);
            (*record)["exitCode"] = res.exit_code;
            (*record)["output"] = res.output;
        });
        return FakeResponse::json(202, {{"cmdId", cmd_id}});
    }
    if (rest.size() >= 5 && rest[3] == "command") {
        auto c = s.commands.find(rest[4]);
        if (c == s.commands.end()) return error(404, r.path, "command not found");
        if (rest.size() == 6 && rest[5] == "logs") {
            FakeResponse out;
            out.content_type = "text/plain";
            out.body = c->second.value("output", "");
            return out;
        }
        json view = c->second;
        view.erase("output");
        return FakeResponse::json(200, view);
    }
    return error(404, r.path, "Cannot " + r.method + " " + r.path);
}

}  // namespace cloud_fakes
