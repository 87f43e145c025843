#include "modules/host_environment.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

namespace actionhost::host {

HostEnvironment::HostEnvironment(Facts facts, std::map<std::string, std::string> settings)
    : facts_(std::move(facts)), settings_(std::move(settings)) {
    info_.struct_size = sizeof(ah_host_info_t);
    info_.working_dir = facts_.working_dir.c_str();
    info_.username = facts_.username.c_str();
    info_.user_id = facts_.user_id;
    info_.host_is_root = geteuid() == 0 ? 1 : 0;
    info_.install_dir = facts_.install_dir.c_str();
    info_.host_version = facts_.version.c_str();
    const char *lj = std::getenv("LOG_JSON");
    log_json_ = lj && (std::string(lj) == "1" || std::string(lj) == "true" || std::string(lj) == "True");
}

const char *HostEnvironment::config_get(const std::string &key) {
    std::lock_guard lock(mu_);
    if (auto it = settings_.find(key); it != settings_.end()) return it->second.c_str();
    if (auto it = env_cache_.find(key); it != env_cache_.end()) return it->second.c_str();
    const char *v = std::getenv(key.c_str());
    if (v == nullptr) return nullptr;
    return env_cache_.emplace(key, v).first->second.c_str();
}

void HostEnvironment::set_user_id(int user_id) {
    facts_.user_id = user_id;
    info_.user_id = user_id;
}

void HostEnvironment::set(const std::string &key, const std::string &value) {
    std::lock_guard lock(mu_);
    settings_[key] = value;
}

void HostEnvironment::log(ah_log_level_t level, const std::string &who, const std::string &msg) const {
    static const char *names[] = {"DEBUG", "INFO", "WARNING", "ERROR", "PLUGIN-MISBEHAVING"};
    const char *lvl = (level >= 0 && level <= 4) ? names[level] : "INFO";
    if (level == AH_LOG_DEBUG && std::getenv("DEBUG") == nullptr) return;
    if (log_sink) return log_sink(level, "[" + who + "] " + msg);
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    char ts[32];
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::string line;
    if (log_json_) {
        line = nlohmann::json{{"time", ts}, {"level", lvl}, {"source", who}, {"message", msg}}.dump(
                   -1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } else {
        line = std::string(ts) + " " + lvl + " [" + who + "] " + msg + "\n";
    }
    // One write per line so lines from threads never interleave.
    (void)!::write(2, line.data(), line.size());
}

}  // namespace actionhost::host
