// `modal`: the host in a Modal sandbox, as OpenHands' ModalRuntime provisions one: app "openhands" (created
// if missing), the image from a registry tag, the host's environment as an app-owned secret, a sandbox
// whose entrypoint starts the host on port 3000 with that port opened as a tunnel, then /alive through the
// tunnel. Close = terminate. Modal sandboxes cannot be paused: pause and resume are unsupported. With
// keep_runtime_alive the sandbox is kept and reattached by id. sandbox.lifetime and idle_timeout are
// Modal's own timeout and idle_timeout (sandbox_timeouts.hpp): the sandbox ends by itself.
#include <actionhost/ext/runtime_recovery.h>

#include <actionhost/runtime_support/cloud_backend.hpp>
#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "modal_api.hpp"
#include "network_access.hpp"
#include "sandbox_timeouts.hpp"
#include <actionhost/common/json_write.hpp>

namespace {

using namespace actionhost::runtime_support;
using nlohmann::json;

class ModalRuntime : public CloudBackend {
  public:
    using CloudBackend::CloudBackend;
    ~ModalRuntime() override {
        if (!sandbox_id_.empty() && !kept_) terminate_quietly();
    }

    void connect() override {
        // The timeouts before anything is asked of Modal: a refusal leaves nothing behind.
        const modal::SandboxTimeouts timeouts = modal::sandbox_timeouts(
            lifetime_request([this](const std::string &key) { return config(key); }),
            config("modal.timeout"));
        open_api();
        launch_ = sandbox_host("modal", 3000);
        key_ = launch_.session_api_key;
        timeout_s_ = config_number("modal.init_timeout", 120);
        unencrypted_ = config_bool("modal.unencrypted", false);

        if (attach()) return;
        // The network before anything is made at Modal: a refusal leaves nothing behind.
        modal::ModalNetwork network;
        try {
            network = modal::modal_network(config("sandbox.network"), config("sandbox.allow_out"), config("sandbox.deny_out"));
        } catch (const std::invalid_argument &e) {
            throw Unsupported(e.what());
        }
        if (!network.note.empty()) log(AH_LOG_INFO, network.note);
        status(AH_STATUS_STARTING_RUNTIME, "creating a Modal sandbox");
        std::string environment = setting("MODAL_ENVIRONMENT", "modal.environment", "");
        std::string app = api_->app_get_or_create(config_string("modal.app_name", "openhands"), environment);
        std::string image = config_string("modal.image", config_string("sandbox.runtime_container_image", ""));
        if (image.empty())
            throw std::runtime_error("Modal needs an image holding actionhost: set [modal] image or sandbox.runtime_container_image");
        status(AH_STATUS_BUILDING_RUNTIME, "resolving Modal image " + image);
        std::string image_id = api_->image_from_registry(app, api_->image_builder_version(environment), image,
                                                         config_number("modal.image_timeout", 1800));
        std::string secret_id = api_->secret_from_dict(app, launch_.env);

        modal::client::Sandbox def;
        for (const auto &a : std::vector<std::string>{"/bin/sh", "-c", "mkdir -p " + shell_quote(launch_.workspace) + " && cd " +
                                                                           shell_quote(launch_.workspace) + " && exec " +
                                                                           shell_join(launch_.argv)})
            def.add_entrypoint_args(a);
        def.set_image_id(image_id);
        def.add_secret_ids(secret_id);
        def.set_timeout_secs(timeouts.timeout_secs);
        if (timeouts.idle_timeout_secs) def.set_idle_timeout_secs(*timeouts.idle_timeout_secs);
        if (double cpu = config_number("modal.cpu", 0); cpu > 0) def.mutable_resources()->set_milli_cpu(static_cast<uint32_t>(cpu * 1000));
        if (double mem = config_number("modal.memory_mb", 0); mem > 0) def.mutable_resources()->set_memory_mb(static_cast<uint32_t>(mem));
        auto *port = def.mutable_open_ports()->add_ports();
        port->set_port(static_cast<uint32_t>(launch_.port));
        port->set_unencrypted(unencrypted_);
        auto *access = def.mutable_network_access();
        if (network.type == modal::ModalNetwork::Type::Allowlist) {
            access->set_network_access_type(modal::client::NetworkAccess::ALLOWLIST);
            for (const auto &cidr : network.allowed_cidrs) access->add_allowed_cidrs(cidr);
        } else {
            access->set_network_access_type(modal::client::NetworkAccess::OPEN);
        }
        sandbox_id_ = api_->sandbox_create(app, def);
        timeouts_ = timeouts;
        created_at_ = unix_now();
        try {
            wait_ready();
        } catch (...) {
            terminate_quietly();
            throw;
        }
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    Endpoint endpoint() override { return {url_, key_, sandbox_id_}; }

    void close() override {
        if (sandbox_id_.empty()) return;
        if (config_bool("sandbox.keep_runtime_alive", false)) {
            kept_ = true;
            json rec = {{"sandbox_id", sandbox_id_}, {"url", url_}, {"session_api_key", key_}, {"created_at", created_at_},
                        {"timeout_secs", timeouts_.timeout_secs}};
            if (timeouts_.idle_timeout_secs) rec["idle_timeout_secs"] = *timeouts_.idle_timeout_secs;
            save_kept_alive_record(record_path(), rec);
            return;
        }
        std::string id = sandbox_id_;
        sandbox_id_.clear();
        api_->terminate(id);
        std::error_code ec;
        std::filesystem::remove(record_path(), ec);
    }

    // The timeouts asked at create, counted from then (Modal reports neither, only whether the sandbox
    // has ended): connected, or for the session's kept sandbox from its record. No call of Modal's
    // extends a running sandbox.
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override {
        open_api();
        std::string id = sandbox_id_;
        if (id.empty()) {
            const json rec = read_record();
            id = rec.value("sandbox_id", "");
            if (id.empty()) throw std::runtime_error("no kept Modal sandbox of session " + std::string(info().session_id));
            take_timeouts(rec);
        }
        if (auto r = api_->result(id)) throw std::runtime_error("Modal sandbox " + id + " has ended: " + ended_because(*r));
        KeptLifetime k;
        if (created_at_ > 0) k.lifetime_s = timeouts_.timeout_secs;
        k.started_at = created_at_;
        if (timeouts_.idle_timeout_secs) {
            k.idle_timeout_s = *timeouts_.idle_timeout_secs;
            k.idle_action = "stop";
        }
        return actionhost::common::dump_json(kept_lifetime_json(k, unix_now()));
    }
    std::string extend_lifetime(long long) override {
        throw Unsupported("Modal cannot extend a sandbox's lifetime: its timeout is fixed when the sandbox is created (at most 24 h); "
                          "Modal suggests a filesystem snapshot and a new sandbox for longer work");
    }

    // A request the tunnel refused: a sandbox that has ended (its timeout or idle timeout) is reported
    // as gone, with why.
    bool handles_sandbox_errors() const override { return true; }
    int on_sandbox_error(int http_status) override {
        if (http_status != 404 && http_status != 502 && http_status != 503 && http_status != 504) return AH_RECOVERY_REPORT;
        if (auto r = api_->result(sandbox_id_)) throw std::runtime_error("Modal sandbox " + sandbox_id_ + " has ended: " + ended_because(*r));
        return AH_RECOVERY_REPORT;
    }

  private:
    void open_api() {
        if (api_) return;
        // Both spellings: Modal's own (MODAL_TOKEN_ID, what the modal CLI exports) and OpenHands'
        // (MODAL_API_TOKEN_ID, [core] modal_api_token_id), then our [modal] token_id.
        std::string id = setting("MODAL_API_TOKEN_ID", "core.modal_api_token_id", setting("MODAL_TOKEN_ID", "modal.token_id", ""));
        if (id.empty())
            throw std::runtime_error("MODAL_API_TOKEN_ID (or MODAL_TOKEN_ID) is not set: create a token with `modal token new` and export it");
        std::string secret = setting("MODAL_API_TOKEN_SECRET", "core.modal_api_token_secret", setting("MODAL_TOKEN_SECRET", "modal.token_secret", ""));
        if (secret.empty())
            throw std::runtime_error("MODAL_API_TOKEN_SECRET (or MODAL_TOKEN_SECRET) is not set: export the token's secret");
        std::string server = setting("MODAL_SERVER_URL", "modal.server_url", "https://api.modal.com");
        api_ = std::make_unique<modal::ModalApi>(host(), server, id, secret);
    }

    static std::string ended_because(const modal::client::GenericResult &r) {
        std::string why = modal::describe(r);
        if (r.status() == modal::client::GenericResult::GENERIC_STATUS_TIMEOUT) why += " (its timeout, sandbox.lifetime or modal.timeout, ran out)";
        if (r.status() == modal::client::GenericResult::GENERIC_STATUS_IDLE_TIMEOUT) why += " (idle for sandbox.idle_timeout)";
        return why;
    }

    json read_record() const {
        std::ifstream in(record_path());
        const json rec = in ? json::parse(in, nullptr, false) : json();
        return rec.is_object() ? rec : json::object();
    }

    // The timeouts a kept sandbox was created with, from its record (records of older versions have none).
    void take_timeouts(const json &rec) {
        created_at_ = rec.value("created_at", 0.0);
        timeouts_.timeout_secs = rec.value("timeout_secs", modal::kOpenHandsTimeoutSecs);
        if (rec.contains("idle_timeout_secs") && rec["idle_timeout_secs"].is_number_unsigned())
            timeouts_.idle_timeout_secs = rec["idle_timeout_secs"].get<uint32_t>();
    }

    std::string record_path() const {
        return kept_alive_record_path(config_string("core.state_dir", "/tmp"), "modal", info().session_id);
    }

    // A sandbox this session kept alive (keep_runtime_alive), found by id as Sandbox.from_id does
    // (SandboxWait with timeout 0): reused while it runs.
    bool attach() {
        std::ifstream in(record_path());
        if (!in) return false;
        json rec = json::parse(in, nullptr, false);
        if (!rec.is_object() || rec.value("sandbox_id", "").empty()) return false;
        std::string id = rec["sandbox_id"];
        if (api_->result(id)) return false;  // it ended: start a new one
        sandbox_id_ = id;
        take_timeouts(rec);
        key_ = rec.value("session_api_key", key_);
        status(AH_STATUS_STARTING_RUNTIME, "attaching to Modal sandbox " + id);
        wait_ready();
        status(AH_STATUS_RUNTIME_STARTED, url_);
        return true;
    }

    // Scheduled (task id), tunnel ready, then /alive through it; a sandbox that ends meanwhile is
    // reported with its result.
    void wait_ready() {
        poll_until("Modal sandbox " + sandbox_id_ + " was not scheduled", timeout_s_, 0.5, [&] { return api_->task_id(sandbox_id_).has_value(); });
        std::optional<modal::client::TunnelData> t;
        poll_until("Modal sandbox " + sandbox_id_ + " opened no tunnel for port " + std::to_string(launch_.port), timeout_s_, 0, [&] {
            t = api_->tunnel(sandbox_id_, static_cast<uint32_t>(launch_.port), 5);
            if (!t) check_still_running();
            return t.has_value();
        });
        if (unencrypted_ && t->has_unencrypted_host()) {
            url_ = "http://" + t->unencrypted_host() + ":" + std::to_string(t->unencrypted_port());
        } else {
            url_ = "https://" + t->host() + (t->port() == 443 ? "" : ":" + std::to_string(t->port()));
        }
        status(AH_STATUS_STARTING_RUNTIME, "waiting for the host at " + url_);
        poll_until("the host at " + url_ + " did not answer /alive", timeout_s_, 0, [&] {
            if (host()->wait_alive(host(), url_.c_str(), key_.c_str(), 2.0) == AH_OK) return true;
            check_still_running();
            return false;
        });
    }

    void check_still_running() {
        if (auto r = api_->result(sandbox_id_))
            throw std::runtime_error("Modal sandbox " + sandbox_id_ + " ended before its host answered: " + modal::describe(*r));
    }

    void terminate_quietly() noexcept {
        try {
            if (api_ && !sandbox_id_.empty()) api_->terminate(sandbox_id_);
        } catch (const std::exception &e) {
            log(AH_LOG_WARNING, "could not terminate Modal sandbox " + sandbox_id_ + ": " + e.what());
        }
        sandbox_id_.clear();
    }

    std::unique_ptr<modal::ModalApi> api_;
    SandboxHostLaunch launch_;
    std::string sandbox_id_, url_, key_;
    modal::SandboxTimeouts timeouts_;
    double created_at_ = 0;  // Unix seconds of SandboxCreate; 0: unknown
    double timeout_s_ = 120;
    bool unencrypted_ = false, kept_ = false;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<ModalRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("modal", "0.1.0", create)
