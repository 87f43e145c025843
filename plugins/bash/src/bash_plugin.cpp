// The `bash` plugin: provides the `run` action with a persistent shell per session name.
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <chrono>
#include <thread>

#include <actionhost/common/json_write.hpp>
#include <actionhost/ext/http_routes.h>
#include <nlohmann/json.hpp>

#include "actionhost/plugin.hpp"
#include "bash_session.hpp"
#include "cli_command.hpp"
#include "messages.hpp"
#include "run_request.hpp"
#include <actionhost/common/process/shell_identity.hpp>
#include "static_command.hpp"
#include "stdin_route.hpp"
#include <actionhost/common/python_repr.hpp>

namespace actionhost::bash {

namespace {

// Named sessions are created on demand; this many at most, so a client cannot exhaust the sandbox.
constexpr size_t kMaxSessions = 64;
// POST /stdin: how long it waits for the session's command to take the bytes (the client sends the rest
// again), and for a session that does not exist yet (a client's first bytes beside its first action).
constexpr auto kStdinWriteWait = std::chrono::seconds(10);
constexpr auto kStdinSessionWait = std::chrono::seconds(5);

// NO_CHANGE_TIMEOUT_SECONDS as OpenHands reads it (an integer; we also accept a positive float).
bool parse_soft_timeout(const std::string &s, double &seconds, std::string &text) {
    if (s.empty()) return false;
    char *end = nullptr;
    const long long as_int = std::strtoll(s.c_str(), &end, 10);
    if (*end == '\0' && as_int > 0) {
        seconds = static_cast<double>(as_int);
        text = std::to_string(as_int);
        return true;
    }
    const double v = std::strtod(s.c_str(), &end);
    if (*end == '\0' && std::isfinite(v) && v > 0) {
        seconds = v;
        text = common::python_repr_float(v);
        return true;
    }
    return false;
}

}  // namespace

class BashPlugin final : public sdk::Plugin {
  public:
    explicit BashPlugin(sdk::Host host) : sdk::Plugin(host) {
        wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        routes_.struct_size = sizeof routes_;
        routes_.paths = kRoutePaths;
        routes_.handle = &BashPlugin::handle_route;
    }

    const void *extension(const char *id) const override {
        if (id != nullptr && std::string_view(id) == AH_EXT_HTTP_ROUTES) return &routes_;
        return nullptr;
    }
    ~BashPlugin() override {
        std::map<std::string, std::shared_ptr<BashSession>> sessions;
        {
            std::lock_guard<std::mutex> lk(mu_);
            sessions.swap(sessions_);
        }
        sessions.clear();
        if (wake_fd_ >= 0) close(wake_fd_);
        std::error_code ec;
        if (!cli_scratch_.empty()) std::filesystem::remove_all(cli_scratch_, ec);
    }

    ah_status_t init() override {
        const ah_host_info_t &info = host().info();
        base_.working_dir = info.working_dir && *info.working_dir ? info.working_dir : "/";
        const std::string username = info.username ? info.username : "";
        base_.identity = std::make_shared<common::ShellIdentity>(common::resolve_shell_identity(username));
        host().log(base_.identity->switch_user || username.empty() || username == base_.identity->username
                       ? AH_LOG_INFO
                       : AH_LOG_WARNING,
                   base_.identity->note);
        // The host found it (manifest "needs"): the image's bash, else the bundle's static one.
        if (auto found = host().config("needs.bash"); found && !found->empty()) {
            base_.bash_path = *found;
        } else {
            base_.bash_path = common::find_program("bash", "/usr/bin:/bin");
            if (base_.bash_path.empty()) base_.bash_path = "/bin/bash";
        }
        if (auto v = host().config("NO_CHANGE_TIMEOUT_SECONDS")) {
            if (!parse_soft_timeout(*v, base_.no_change_timeout_s, base_.no_change_timeout_text))
                host().log(AH_LOG_WARNING, "NO_CHANGE_TIMEOUT_SECONDS=" + *v + " is not a positive number; using 10");
        }
        const sdk::Host h = host();
        base_.log = [h](common::LogLevel level, const std::string &msg) { h.log(common::to_abi(level), msg); };

        // Inside a client process (the `cli` runtime) every command gets a fresh shell, as in OpenHands'
        // CLIRuntime: no persistent shell to start.
        if (auto mode = host().config("ACTIONHOST_BASH_MODE"); mode && *mode == "cli") {
            std::string tmpl = (std::filesystem::temp_directory_path() / "ah-bash-cli-XXXXXX").string();
            if (mkdtemp(tmpl.data()) == nullptr) {
                host().log(AH_LOG_ERROR, "cannot create a scratch directory for the CLI mode");
                return AH_ERR_IO;
            }
            cli_scratch_ = tmpl;
            return AH_OK;
        }
        // OpenHands starts the main shell at server start; so do we, so the first action is fast.
        if (auto session = session_for(""); !session)
            host().log(AH_LOG_ERROR, "default bash session did not start (retried on first use): " + session.error().message);
        return AH_OK;
    }

    ah_status_t execute(sdk::Call &call) override {
        if (call.action() != "run") {
            call.reply(error_observation_json("ERROR: the bash plugin does not handle action `" +
                                              std::string(call.action()) + "`."));
            return AH_OK;
        }
        const auto parsed = parse_run_request(call.action_json());
        if (!parsed) {
            call.reply(error_observation_json("ERROR: " + parsed.error().message));
            return AH_OK;
        }
        const RunRequest &rq = parsed.value();
        // A separate_stderr command's terminal output is its stdout (a tty-less command's stdout is a pipe
        // of its own); otherwise the terminal's merged output goes unmarked, exactly as before the marks
        // existed.
        const bool marked = rq.separate_stderr || !rq.tty;
        if (rq.open_stdin && (!cli_scratch_.empty() || rq.is_static)) {
            call.reply(error_observation_json(
                std::string("ERROR: `open_stdin` needs the session's persistent shell; ") +
                (rq.is_static ? "an `is_static` command runs apart from it, with /dev/null as stdin."
                              : "in the CLI mode (the `cli` runtime) each command runs in a fresh shell with /dev/null as stdin.")));
            return AH_OK;
        }
        const EmitFn emit = [&call, marked](std::string_view chunk) {
            if (marked) call.emit_partial(chunk, AH_OUTPUT_STDOUT);
            else call.emit_partial(chunk);
        };
        const EmitFn emit_stderr = [&call](std::string_view chunk) { call.emit_partial(chunk, AH_OUTPUT_STDERR); };
        if (!cli_scratch_.empty()) {
            const StaticContext ctx{&base_, wake_fd_};
            CliShellState state;
            {
                std::lock_guard<std::mutex> lk(mu_);
                state = cli_states_[std::string(call.session())];
            }
            std::string obs = run_cli_command(rq, ctx, state, cli_scratch_, emit);
            std::lock_guard<std::mutex> lk(mu_);
            cli_states_[std::string(call.session())] = std::move(state);
            call.reply(obs);
            return AH_OK;
        }
        if (rq.is_static) {
            const StaticContext ctx{&base_, wake_fd_};
            call.reply(run_static_command(rq, ctx, emit));
            return AH_OK;
        }
        auto session = session_for(std::string(call.session()));
        if (!session) {
            call.reply(error_observation_json("ERROR: " + session.error().message));
            return AH_OK;
        }
        call.reply(session.value()->execute(rq, emit, emit_stderr));
        return AH_OK;
    }

    void shutdown() override {
        std::map<std::string, std::shared_ptr<BashSession>> sessions;
        {
            std::lock_guard<std::mutex> lk(mu_);
            stopping_ = true;
            sessions = sessions_;
        }
        const uint64_t one = 1;
        ssize_t ignored = write(wake_fd_, &one, sizeof one);
        (void)ignored;
        for (auto &[name, s] : sessions) s->shutdown();
    }

  private:
    static ah_status_t handle_route(ah_plugin_t *plugin, const ah_http_request_t *request, ah_http_reply_t *reply) {
        return sdk::with_plugin<BashPlugin>(plugin, [&](BashPlugin &self) { return self.answer(request, reply); });
    }

    // POST /stdin?session=NAME[&eof=1] (stdin_route.hpp).
    ah_status_t answer(const ah_http_request_t *request, ah_http_reply_t *reply) {
        auto send = [&](int status, const std::string &body) {
            reply->send(reply, status, "application/json", ah_bytes_t{body.data(), body.size()});
        };
        if (std::string_view(request->method ? request->method : "") != "POST") {
            send(405, R"({"detail":"Method Not Allowed"})");
            return AH_OK;
        }
        const auto query = parse_stdin_query(request->query ? request->query : "");
        if (!query) {
            send(400, common::dump_json(nlohmann::json{{"detail", "Bad Request: " + query.error().message}}));
            return AH_OK;
        }
        if (!cli_scratch_.empty()) {
            send(409, R"({"detail":"No command reads its stdin in the CLI mode (the cli runtime): each command runs in a fresh shell with /dev/null as stdin"})");
            return AH_OK;
        }
        // The session may be created by the very action whose stdin this is, a moment from now.
        std::shared_ptr<BashSession> session;
        const auto until = std::chrono::steady_clock::now() + kStdinSessionWait;
        for (int i = 0; i < 1000; ++i) {
            {
                std::lock_guard<std::mutex> lk(mu_);
                if (auto it = sessions_.find(query.value().session); it != sessions_.end()) session = it->second;
                if (session || stopping_) break;
            }
            if (std::chrono::steady_clock::now() >= until) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        StdinFeed feed;
        if (session) {
            const ah_bytes_t body = request->body;
            feed = session->feed_stdin(std::string_view(body.ptr ? body.ptr : "", body.ptr ? body.len : 0), query.value().eof,
                                       std::chrono::duration_cast<std::chrono::milliseconds>(kStdinWriteWait));
        } else {
            feed.no_command = true;
        }
        const StdinAnswer a = stdin_answer(query.value(), feed);
        send(a.status, a.body);
        return AH_OK;
    }

    common::Result<std::shared_ptr<BashSession>> session_for(const std::string &name) {
        std::shared_ptr<BashSession> s;
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (stopping_) return common::fail("the bash plugin is shutting down");
            auto it = sessions_.find(name);
            if (it != sessions_.end()) return it->second;
            if (sessions_.size() >= kMaxSessions)
                return common::fail("too many bash sessions (at most " + std::to_string(kMaxSessions) + ")");
            SessionConfig cfg = base_;
            cfg.name = name;
            s = std::make_shared<BashSession>(std::move(cfg));
        }
        // Started outside the lock: other sessions stay usable meanwhile. Two first uses of one new name
        // race harmlessly: the loser's shell is dropped.
        if (auto started = s->start(); !started) return started.as_failure();
        std::lock_guard<std::mutex> lk(mu_);
        auto [it, inserted] = sessions_.emplace(name, s);
        if (stopping_) s->shutdown();
        return it->second;
    }

    SessionConfig base_;
    int wake_fd_ = -1;
    std::mutex mu_;
    std::map<std::string, std::shared_ptr<BashSession>> sessions_;
    bool stopping_ = false;
    std::string cli_scratch_;                         // set in the CLI mode
    std::map<std::string, CliShellState> cli_states_;  // per session name, in the CLI mode
    static constexpr const char *kRoutePaths[] = {"/stdin", nullptr};
    ah_ext_http_routes_t routes_{};
};

}  // namespace actionhost::bash

ACTIONHOST_PLUGIN(actionhost::bash::BashPlugin, "bash", "0.1.0")
