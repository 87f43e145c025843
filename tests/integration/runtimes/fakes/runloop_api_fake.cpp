#include "runloop_api_fake.hpp"

#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/PartHandler.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cloud_fakes {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

long long now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

FakeResponse error(int status, const std::string &message) { return FakeResponse::json(status, {{"error", message}}); }

std::vector<std::string> split_path(const std::string &path) {
    std::vector<std::string> parts;
    std::stringstream s(path);
    for (std::string p; std::getline(s, p, '/');)
        if (!p.empty()) parts.push_back(p);
    return parts;
}

const std::chrono::milliseconds kStep(250);  // time spent in each transitional status

class FileCatcher : public Poco::Net::PartHandler {
  public:
    void handlePart(const Poco::Net::MessageHeader &header, std::istream &stream) override {
        std::string disp = header.get("Content-Disposition", "");
        if (disp.find("name=\"file\"") == std::string::npos) return;
        Poco::StreamCopier::copyToString(stream, content);
        seen = true;
    }
    std::string content;
    bool seen = false;
};

}  // namespace

struct RunloopApiFake::Devbox {
    std::string id, name, status;
    json launch = json::object(), metadata = json::object(), env = json::object(), transitions = json::array();
    std::string entrypoint, failure_reason, shutdown_reason;
    long long create_ms = 0, end_ms = 0;
    std::unique_ptr<ProcessBox> box;
    pid_t entry_pid = -1;
    std::map<int, std::unique_ptr<TunnelProxy>> tunnels;
    Clock::time_point next, created, last_activity;
    std::string fail_with;
    std::map<std::string, json> executions;
};

RunloopApiFake::RunloopApiFake(std::string api_key, std::optional<actionhost::testing::TlsServerFiles> tls) : key_(std::move(api_key)), tls_(std::move(tls)) {
    scheduler_ = std::thread([this] {
        while (!stopping_) {
            advance();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    server_ = std::make_unique<FakeHttpServer>([this](const FakeRequest &r) { return route(r); }, tls_);
}

RunloopApiFake::~RunloopApiFake() {
    server_.reset();
    for (auto &w : workers_) w.join();
    stopping_ = true;
    scheduler_.join();
    std::lock_guard lock(mutex_);
    for (auto &[id, d] : boxes_) d->box.reset();
}

void RunloopApiFake::fail_next(const std::string &prefix, int status, int count, std::map<std::string, std::string> headers) {
    std::lock_guard lock(mutex_);
    if (headers.empty() && status == 429) headers["retry-after"] = "0";
    failures_.push_back({prefix, status, count, std::move(headers)});
}

void RunloopApiFake::fail_next_devbox(const std::string &reason) {
    std::lock_guard lock(mutex_);
    fail_next_devbox_ = reason;
}

std::map<std::string, std::string> RunloopApiFake::devboxes() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::string> out;
    for (const auto &[id, d] : boxes_) out[id] = d->status;
    return out;
}

std::vector<std::string> RunloopApiFake::live_devboxes() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto &[id, d] : boxes_)
        if ((d->status != "shutdown" && d->status != "failure") || (d->box && d->box->running_count() > 0))
            out.push_back(id + " (" + d->status + ")");
    return out;
}

std::vector<std::string> RunloopApiFake::requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
}

std::vector<std::chrono::steady_clock::time_point> RunloopApiFake::request_times() const {
    std::lock_guard lock(mutex_);
    return request_times_;
}

json RunloopApiFake::last_create_body() const {
    std::lock_guard lock(mutex_);
    return last_create_;
}

void RunloopApiFake::set_status(Devbox &d, const std::string &status) {
    d.status = status;
    d.transitions.push_back({{"status", status}, {"transition_time_ms", now_ms()}});
    if (status == "shutdown" || status == "failure") {
        d.end_ms = now_ms();
        for (auto &[port, t] : d.tunnels) t->set_open(false);
        if (d.box) d.box->stop();
    }
    changed_.notify_all();
}

json RunloopApiFake::view(const Devbox &d) const {
    json v = {{"id", d.id},           {"status", d.status},         {"name", d.name},
              {"metadata", d.metadata}, {"launch_parameters", d.launch}, {"create_time_ms", d.create_ms},
              {"capabilities", json::array()}, {"state_transitions", d.transitions}};
    if (d.end_ms) v["end_time_ms"] = d.end_ms;
    if (!d.failure_reason.empty()) v["failure_reason"] = d.failure_reason;
    if (!d.shutdown_reason.empty()) v["shutdown_reason"] = d.shutdown_reason;
    return v;
}

namespace {

// The idle policy of launch_parameters.after_idle, when set: {seconds, "suspend" | "shutdown"}.
std::optional<std::pair<double, std::string>> after_idle_of(const json &launch) {
    if (!launch.contains("after_idle") || !launch["after_idle"].is_object()) return std::nullopt;
    const json &a = launch["after_idle"];
    return std::make_pair(a.value("idle_time_seconds", 0.0), a.value("on_idle", std::string()));
}

// Activity that postpones an idle policy: the API's calls on the devbox and its tunnels' requests.
Clock::time_point last_activity_of(const Clock::time_point api_activity, const std::map<int, std::unique_ptr<TunnelProxy>> &tunnels,
                                          bool *busy) {
    Clock::time_point last = api_activity;
    for (const auto &[port, t] : tunnels) {
        last = std::max(last, t->last_request());
        if (t->requests_in_flight() > 0) *busy = true;
    }
    return last;
}

}  // namespace

void RunloopApiFake::expire(Devbox &d, Clock::time_point now) {
    if (d.status == "shutdown" || d.status == "failure" || d.status == "provisioning") return;
    if (auto idle = after_idle_of(d.launch)) {
        if (d.status != "running") return;  // on_idle applies to running devboxes only
        bool busy = false;
        const Clock::time_point last = last_activity_of(d.last_activity, d.tunnels, &busy);
        if (busy || now - last < std::chrono::duration<double>(idle->first)) return;
        if (idle->second == "suspend") {
            d.box->freeze();
            for (auto &[port, t] : d.tunnels) t->set_open(false);
            set_status(d, "suspending");
            d.next = now + kStep;
        } else {
            d.shutdown_reason = "idle";
            set_status(d, "shutdown");
        }
        return;
    }
    // keep_alive_time_seconds: counted from the creation; Runloop's default is one hour.
    const double keep = d.launch.value("keep_alive_time_seconds", 3600.0);
    if (now - d.created >= std::chrono::duration<double>(keep)) {
        d.shutdown_reason = "keep_alive_timeout";
        set_status(d, "shutdown");
    }
}

void RunloopApiFake::advance() {
    std::lock_guard lock(mutex_);
    auto now = Clock::now();
    for (auto &[id, dp] : boxes_) {
        Devbox &d = *dp;
        expire(d, now);
        std::map<std::string, std::string> env;
        for (auto &[k, v] : d.env.items()) env[k] = v.is_string() ? v.get<std::string>() : v.dump();
        if (d.status == "provisioning" && now >= d.next) {
            set_status(d, "initializing");
            d.next = now + kStep;
        } else if (d.status == "initializing" && now >= d.next) {
            if (!d.fail_with.empty()) {
                d.failure_reason = d.fail_with;
                set_status(d, "failure");
                continue;
            }
            bool ok = true;
            for (const auto &cmd : d.launch.value("launch_commands", json::array())) {
                auto r = d.box->run(cmd.get<std::string>(), env, 60);
                if (r.exit_code != 0) ok = false;
            }
            if (!ok) {
                d.failure_reason = "execution_failed";
                set_status(d, "failure");
                continue;
            }
            if (!d.entrypoint.empty()) d.entry_pid = d.box->start(d.entrypoint, env);
            set_status(d, "running");
        } else if (d.status == "running" && d.entry_pid > 0 && !d.box->running(d.entry_pid)) {
            d.shutdown_reason = "entrypoint_exit";
            set_status(d, "shutdown");
        } else if (d.status == "suspending" && now >= d.next) {
            set_status(d, "suspended");
        } else if (d.status == "resuming" && now >= d.next) {
            d.box->thaw();
            for (auto &[port, t] : d.tunnels) t->set_open(true);
            d.last_activity = now;  // its idle time starts again
            set_status(d, "running");
        }
    }
}

FakeResponse RunloopApiFake::route(const FakeRequest &r) {
    std::unique_lock lock(mutex_);
    std::string line = r.method + " " + r.path;
    requests_.push_back(line);
    request_times_.push_back(std::chrono::steady_clock::now());
    if (r.header("authorization") != "Bearer " + key_) return error(401, "Unauthorized: missing or invalid API key");
    for (auto it = failures_.begin(); it != failures_.end(); ++it) {
        if (line.rfind(it->prefix, 0) != 0) continue;
        FakeResponse f = error(it->status, "injected failure");
        for (const auto &[name, value] : it->headers) f.headers[name] = value;
        if (--it->count <= 0) failures_.erase(it);
        return f;
    }
    auto parts = split_path(r.path);
    if (parts.size() < 2 || parts[0] != "v1" || parts[1] != "devboxes") return error(404, "Not found");

    if (parts.size() == 2 && r.method == "POST") {
        json b = r.json();
        if (!b.is_object()) return error(400, "body must be a JSON object");
        int sources = 0;
        for (const char *k : {"blueprint_id", "blueprint_name", "snapshot_id", "prebuilt"}) sources += b.contains(k) ? 1 : 0;
        if (sources > 1) return error(400, "only one of blueprint_id, blueprint_name, snapshot_id, prebuilt may be given");
        const json launch = b.value("launch_parameters", json::object());
        if (launch.contains("keep_alive_time_seconds") &&
            (!launch["keep_alive_time_seconds"].is_number_integer() || launch["keep_alive_time_seconds"].get<long long>() <= 0))
            return error(400, "launch_parameters.keep_alive_time_seconds must be a positive integer");
        if (launch.contains("after_idle")) {
            const json &a = launch["after_idle"];
            if (!a.is_object() || !a.contains("idle_time_seconds") || !a["idle_time_seconds"].is_number_integer() ||
                a["idle_time_seconds"].get<long long>() <= 0)
                return error(400, "launch_parameters.after_idle.idle_time_seconds must be a positive integer");
            const std::string on_idle = a.value("on_idle", "");
            if (on_idle != "shutdown" && on_idle != "suspend") return error(400, "launch_parameters.after_idle.on_idle must be shutdown or suspend");
        }
        last_create_ = b;
        auto d = std::make_shared<Devbox>();
        d->id = "dbx_" + std::to_string(next_id_++);
        d->name = b.value("name", "");
        d->launch = b.value("launch_parameters", json::object());
        d->metadata = b.value("metadata", json::object());
        d->env = b.value("environment_variables", json::object());
        d->entrypoint = b.value("entrypoint", "");
        d->create_ms = now_ms();
        d->created = d->last_activity = Clock::now();
        d->box = std::make_unique<ProcessBox>(d->id);
        d->next = Clock::now() + kStep;
        d->fail_with = fail_next_devbox_;
        fail_next_devbox_.clear();
        set_status(*d, "provisioning");
        boxes_[d->id] = d;
        order_.push_back(d->id);
        return FakeResponse::json(200, view(*d));
    }
    if (parts.size() == 2 && r.method == "GET") {
        std::string status = r.params.count("status") ? r.params.at("status") : "";
        int limit = r.params.count("limit") ? std::max(1, std::stoi(r.params.at("limit"))) : 20;
        std::string after = r.params.count("starting_after") ? r.params.at("starting_after") : "";
        std::vector<json> all;
        bool started = after.empty();
        for (const auto &id : order_) {
            if (!started) {
                started = id == after;
                continue;
            }
            const Devbox &d = *boxes_[id];
            if (status.empty() || d.status == status) all.push_back(view(d));
        }
        json page = json::array();
        for (size_t i = 0; i < all.size() && static_cast<int>(i) < limit; ++i) page.push_back(all[i]);
        return FakeResponse::json(200, {{"devboxes", page},
                                     {"has_more", static_cast<int>(all.size()) > limit},
                                     {"remaining_count", std::max(0, static_cast<int>(all.size()) - limit)},
                                     {"total_count", all.size()}});
    }
    auto it = boxes_.find(parts[2]);
    if (it == boxes_.end()) return error(404, "Devbox " + parts[2] + " not found");
    std::shared_ptr<Devbox> dp = it->second;
    Devbox &d = *dp;
    if (parts.size() == 3 && r.method == "GET") return FakeResponse::json(200, view(d));
    if (parts.size() < 4) return error(405, "Method not allowed");
    std::string verb = parts[3];
    // What the devbox is asked to do is activity; watching its status is not.
    if (verb != "wait_for_status" && verb != "shutdown" && verb != "suspend") d.last_activity = Clock::now();

    if (verb == "wait_for_status" && r.method == "POST") {
        json b = r.json();
        if (!b.is_object() || !b.contains("statuses") || !b["statuses"].is_array() || b["statuses"].empty())
            return error(400, "statuses must be a non-empty list");
        auto wanted = [&] {
            for (const auto &s : b["statuses"])
                if (s == d.status) return true;
            return false;
        };
        if (!changed_.wait_for(lock, std::chrono::duration<double>(long_poll_s_), wanted))
            return error(408, "devbox did not reach a wanted status in time; poll again");
        return FakeResponse::json(200, view(d));
    }
    if (verb == "executions" && parts.size() >= 5) {
        auto e = d.executions.find(parts[4]);
        if (e == d.executions.end()) return error(404, "Execution " + parts[4] + " not found");
        return FakeResponse::json(200, e->second);
    }
    if (r.method != "POST") return error(405, "Method not allowed");
    std::map<std::string, std::string> env;
    for (auto &[k, v] : d.env.items()) env[k] = v.is_string() ? v.get<std::string>() : v.dump();
    auto need = [&](const std::initializer_list<const char *> states) -> bool {
        return std::find(states.begin(), states.end(), d.status) != states.end();
    };
    auto invalid = [&] { return error(400, "Devbox " + d.id + " is " + d.status + ": cannot " + verb); };

    if (verb == "shutdown") {
        if (need({"shutdown", "failure"})) return invalid();
        d.shutdown_reason = "api_shutdown";
        set_status(d, "shutdown");
        return FakeResponse::json(200, view(d));
    }
    if (verb == "suspend") {
        if (!need({"running"})) return invalid();
        d.box->freeze();
        for (auto &[port, t] : d.tunnels) t->set_open(false);
        set_status(d, "suspending");
        d.next = Clock::now() + kStep;
        return FakeResponse::json(200, view(d));
    }
    if (verb == "resume") {
        if (!need({"suspended"})) return invalid();
        set_status(d, "resuming");
        d.next = Clock::now() + kStep;
        return FakeResponse::json(200, view(d));
    }
    if (verb == "keep_alive") {
        if (!need({"running"})) return invalid();
        return FakeResponse::json(200, json::object());
    }
    if (verb == "create_tunnel" || verb == "remove_tunnel") {
        json b = r.json();
        if (!b.is_object() || !b.contains("port") || !b["port"].is_number_integer()) return error(400, "port is required");
        int port = b["port"].get<int>();
        json avail = d.launch.value("available_ports", json::array());
        if (std::find(avail.begin(), avail.end(), json(port)) == avail.end())
            return error(400, "port " + std::to_string(port) + " is not in the devbox's available_ports");
        if (!need({"running", "suspended", "suspending", "resuming"})) return invalid();
        if (verb == "remove_tunnel") {
            d.tunnels.erase(port);
            return FakeResponse::json(200, json::object());
        }
        if (!d.tunnels.count(port)) d.tunnels[port] = std::make_unique<TunnelProxy>(port, "", "", tls_);
        return FakeResponse::json(200, {{"devbox_id", d.id}, {"port", port}, {"url", d.tunnels[port]->url()}});
    }
    if (!need({"running"})) return invalid();  // the tools below need a running devbox
    if (verb == "execute_sync") {
        json b = r.json();
        if (!b.is_object() || !b.contains("command")) return error(400, "command is required");
        auto res = d.box->run(b["command"].get<std::string>(), env, 600);
        return FakeResponse::json(200, {{"devbox_id", d.id}, {"exit_status", res.exit_code}, {"stdout", res.output}, {"stderr", ""}});
    }
    if (verb == "execute_async") {
        json b = r.json();
        if (!b.is_object() || !b.contains("command")) return error(400, "command is required");
        std::string eid = "exe_" + std::to_string(next_id_++);
        json e = {{"execution_id", eid}, {"devbox_id", d.id}, {"status", "queued"}};
        d.executions[eid] = e;
        std::string command = b["command"].get<std::string>();
        workers_.emplace_back([this, dp, eid, command, env] {
            {
                std::lock_guard l(mutex_);
                dp->executions[eid]["status"] = "running";
            }
            auto res = dp->box->run(command, env, 60);
            std::lock_guard l(mutex_);
            json &x = dp->executions[eid];
            x["status"] = "completed";
            x["exit_status"] = res.exit_code;
            x["stdout"] = res.output;
            x["stderr"] = "";
        });
        return FakeResponse::json(200, e);
    }
    if (verb == "download_file" || verb == "read_file_contents") {
        json b = r.json();
        std::string rel = b.value(verb == "download_file" ? "path" : "file_path", "");
        std::ifstream in(fs::path(d.box->home()) / rel, std::ios::binary);
        if (rel.empty() || !in) return error(404, "file not found: " + rel);
        std::stringstream s;
        s << in.rdbuf();
        FakeResponse f;
        f.body = s.str();
        f.content_type = verb == "download_file" ? "application/octet-stream" : "text/plain";
        return f;
    }
    if (verb == "write_file_contents") {
        json b = r.json();
        std::string rel = b.value("file_path", "");
        if (rel.empty()) return error(400, "file_path is required");
        fs::path p = fs::path(d.box->home()) / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << b.value("contents", "");
        return FakeResponse::json(200, view(d));
    }
    if (verb == "upload_file") {
        Poco::Net::HTTPRequest req("POST", r.path);
        req.setContentType(r.content_type);
        std::istringstream body(r.body);
        FileCatcher catcher;
        Poco::Net::HTMLForm form;
        try {
            form.load(req, body, catcher);
        } catch (const Poco::Exception &e) {
            return error(400, "bad multipart body: " + e.displayText());
        }
        std::string rel = form.get("path", "");
        if (rel.empty() || !catcher.seen) return error(400, "path and file are required");
        fs::path p = fs::path(d.box->home()) / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << catcher.content;
        return FakeResponse::json(200, json::object());
    }
    return error(404, "Not found");
}

}  // namespace cloud_fakes
