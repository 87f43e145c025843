// `cli`: no server. The host's core (module registry, router, plugin loading, file actions and its HTTP
// API handlers) runs inside the client's own process, and the client library hands it every request
// through the in-process extension (sdk/include/actionhost/ext/runtime_in_process.h) instead of a
// socket: OpenHands' CLIRuntime, useful where nothing can listen on a port. The shell plugin runs in its
// CLI mode (as OpenHands' CLIRuntime: a fresh `bash -c` per command, no interactive input).
#include <signal.h>
#include <unistd.h>

#include <actionhost/ext/runtime_in_process.h>
#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/header_line.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/host_core.hpp"
#include <actionhost/common/http/memory_exchange.hpp>


namespace {

using namespace actionhost::runtime_support;
namespace host = actionhost::host;
namespace fs = std::filesystem;

// A handled SIGPIPE, as the host process has: a plugin writing to a child that went away gets EPIPE
// instead of ending the client. Only when the client left the default (it may have its own).
void tolerate_sigpipe() {
    struct sigaction old {};
    if (sigaction(SIGPIPE, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return;
    struct sigaction sa {};
    sa.sa_handler = [](int) {};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
}

class CliRuntime : public Backend {
  public:
    explicit CliRuntime(const ah_runtime_host_t *h) : Backend(h) {
        ext_.struct_size = sizeof(ext_);
        ext_.ext_data = this;
        ext_.handle = &CliRuntime::c_handle;
        ext_.result_free = &CliRuntime::c_result_free;
    }
    ~CliRuntime() override { stop(); }

    void connect() override {
        if (core_) return;
        if (config_bool("sandbox.keep_runtime_alive", false))
            throw std::runtime_error("the cli runtime lives inside the client process and ends with it: "
                                     "sandbox.keep_runtime_alive cannot be honoured");
        status(AH_STATUS_STARTING_RUNTIME, "loading the plugins into this process");
        try {
            start();
        } catch (...) {
            stop();
            throw;
        }
        status(AH_STATUS_RUNTIME_STARTED, endpoint_url());
    }

    Endpoint endpoint() override {
        if (!core_) throw std::runtime_error("the cli runtime is not connected");
        return {endpoint_url(), "", "cli-" + std::to_string(getpid())};
    }

    void close() override { stop(); }

    const void *extension(const std::string &id) const override {
        return id == AH_EXT_RUNTIME_IN_PROCESS ? &ext_ : nullptr;
    }

  private:
    std::string endpoint_url() const { return AH_IN_PROCESS_URL_SCHEME "cli-" + std::string(info().session_id); }

    void start() {
        std::string workspace = config_string("core.workspace_base", "");
        if (workspace.empty()) {
            workspace = make_temp_dir("openhands-workspace-");
            temp_workspace_ = workspace;
        }
        fs::create_directories(workspace);
        workspace = fs::canonical(workspace).string();

        // The sandbox environment goes into this process, as CLIRuntime puts it into os.environ: the
        // plugins' shells and kernels inherit it. The session key guards a socket there is none of.
        for (const auto &[k, v] : host_env())
            if (k != "SESSION_API_KEY") setenv(k.c_str(), v.c_str(), 1);
        tolerate_sigpipe();

        // The same command line a host process gets, parsed and assembled as main.cpp does (HostCore):
        // the same plugins, options, limits and path policy, served in this process.
        std::vector<std::string> args = {"0"};
        for (const auto &a : host_args()) args.push_back(a);
        auto parsed = host::parse_options(args);
        if (!parsed) throw std::runtime_error("the host's arguments: " + parsed.error().message);
        host::Options o = parsed.value();
        o.working_dir = workspace;
        o.username = user_name(getuid());  // no user switch: the client's own user runs the actions
        o.user_id = static_cast<int>(getuid());
        const ah_runtime_host_t *h = host();
        auto core = std::make_unique<host::HostCore>(host::HostCoreSettings{
            o, info().install_dir ? info().install_dir : "", o.user_id,
            // A fresh `bash -c` per command; no key guards a socket there is none of.
            {{"ACTIONHOST_BASH_MODE", "cli"}, {"SESSION_API_KEY", ""}},
            [h](actionhost::common::LogLevel level, const std::string &line) { h->log(h, actionhost::common::to_abi(level), line.c_str()); }});
        if (auto loaded = core->load_start_plugins(); !loaded) throw std::runtime_error(loaded.error().message);
        std::string plugin_list;
        for (const auto &p : core->start_plugins()) plugin_list += (plugin_list.empty() ? "" : " ") + p;
        core_ = std::move(core);
        log(AH_LOG_INFO, "cli runtime: plugins " + plugin_list + " loaded in process " + std::to_string(getpid()) +
                             ", workspace " + workspace);
    }

    void stop() {
        core_.reset();
        std::error_code ec;
        if (!temp_workspace_.empty()) fs::remove_all(temp_workspace_, ec);
        temp_workspace_.clear();
    }

    struct ResultData {
        std::string body;
    };

    static ah_status_t c_handle(const ah_ext_runtime_in_process_t *ext, const ah_http_call_t *call, ah_http_result_t *result) {
        if (!ext || !call || !result) return AH_ERR_INVALID_ARGUMENT;
        auto *self = static_cast<CliRuntime *>(ext->ext_data);
        result->struct_size = sizeof(*result);
        result->status = 0;
        result->body = {"", 0};
        result->error = "";
        result->result_data = nullptr;
        if (!self->core_) {
            result->error = "the cli runtime is not connected";
            return AH_ERR_IO;
        }
        try {
            actionhost::common::http::ExchangeRequest req;
            req.method = call->method ? call->method : "GET";
            req.uri = call->url ? call->url : "/";
            for (auto p = call->headers; p && *p; ++p)
                if (auto h = actionhost::runtime_support::split_header_line(*p)) req.headers.push_back(std::move(*h));
            if (call->body.ptr && call->body.len) req.body.assign(call->body.ptr, call->body.len);
            auto answer = actionhost::common::http::exchange(
                [core = self->core_.get()](actionhost::common::http::Request &r, actionhost::common::http::Response &resp) {
                    core->handle(r, resp);
                },
                req);
            auto *data = new ResultData{std::move(answer.body)};
            result->status = answer.status;
            result->result_data = data;
            result->body = {data->body.data(), data->body.size()};
            return AH_OK;
        } catch (...) {
            result->error = "the cli runtime could not serve the request";
            return AH_ERR_INTERNAL;
        }
    }

    static void c_result_free(const ah_ext_runtime_in_process_t *, ah_http_result_t *result) {
        if (!result) return;
        delete static_cast<ResultData *>(result->result_data);
        result->result_data = nullptr;
        result->body = {"", 0};
    }

    ah_ext_runtime_in_process_t ext_{};
    std::unique_ptr<host::HostCore> core_;
    std::string temp_workspace_;
};

std::unique_ptr<Backend> make(const ah_runtime_host_t *h, const std::string &) { return std::make_unique<CliRuntime>(h); }

}  // namespace

ACTIONHOST_RUNTIME_MODULE("cli", "0.1.0", make)
