// What every plugin's host services share: facts about the sandbox, configuration and the log.
#pragma once

#include <actionhost/host.h>

#include <actionhost/common/log.hpp>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <mutex>
#include <string>

namespace actionhost::host {

class StreamHub;
class LogRing;

class HostEnvironment {
  public:
    struct Facts {
        std::string working_dir, username, install_dir, version;
        int user_id = 1000;
    };
    HostEnvironment(Facts facts, std::map<std::string, std::string> settings);

    const ah_host_info_t *info() const { return &info_; }
    const Facts &facts() const { return facts_; }
    // `settings` (options manifests declare, then `--set`), then the environment; the returned pointer
    // lives as long as this object.
    const char *config_get(const std::string &key);
    // The settings (not the environment, which the worker inherits), without SESSION_API_KEY: what the
    // policy worker's modules and an isolated plugin's worker read with config_get.
    nlohmann::json settings_for_policy_worker();
    // A worker process's environment (the policy worker, an isolated plugin's): what the host sends —
    // its facts as JSON — and what the worker makes of the init message's "facts" and "settings" (strings
    // only; absent parts give the defaults). One shape for both workers.
    nlohmann::json facts_for_worker() const;
    static Facts facts_from_worker_init(const nlohmann::json &init);
    static std::map<std::string, std::string> settings_from_worker_init(const nlohmann::json &init);
    void set(const std::string &key, const std::string &value);  // before plugins load
    void set_user_id(int user_id);  // before plugins load (the user set-up may find another uid)

    void log(ah_log_level_t level, const std::string &who, const std::string &msg) const;

    StreamHub *streams = nullptr;  // live output followers (set by the server)
    // Where log lines ("[who] message") go instead of stderr (the host core inside a client process).
    common::LogSink log_sink;
    // Also keeps every line for GET /logs (set by the host core; null: nowhere else).
    LogRing *log_ring = nullptr;
    // In a plugin worker: every line goes to the host instead (modules/isolated_plugin.hpp).
    std::function<void(ah_log_level_t, const std::string &who, const std::string &msg)> forward_log;

  private:
    Facts facts_;
    ah_host_info_t info_{};
    std::mutex mu_;
    std::map<std::string, std::string> settings_;
    std::map<std::string, std::string> env_cache_;
    common::LogFormat log_format_ = common::LogFormat::Text;  // LOG_JSON
};

}  // namespace actionhost::host
