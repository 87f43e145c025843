#include "modules/host_environment.hpp"

#include "ops/log_ring.hpp"

#include <unistd.h>

#include <cstdlib>

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
    log_format_ = common::log_format_from_environment();
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
    if (forward_log) return forward_log(level, who, msg);
    const common::LogLevel l = common::from_abi(level);
    if (l == common::LogLevel::Debug && !common::debug_logging_enabled()) return;
    if (log_ring) log_ring->append(common::format_log_line(l, who, msg, log_format_));
    if (log_sink) return log_sink(l, "[" + who + "] " + msg);
    common::log_to_stderr(l, who, msg, log_format_);
}

nlohmann::json HostEnvironment::settings_for_policy_worker() {
    std::lock_guard lock(mu_);
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[k, v] : settings_)
        if (k != "SESSION_API_KEY") out[k] = v;
    return out;
}

nlohmann::json HostEnvironment::facts_for_worker() const {
    return {{"working_dir", facts_.working_dir}, {"username", facts_.username}, {"install_dir", facts_.install_dir},
            {"version", facts_.version}, {"user_id", facts_.user_id}};
}

HostEnvironment::Facts HostEnvironment::facts_from_worker_init(const nlohmann::json &init) {
    const nlohmann::json f = init.contains("facts") ? init["facts"] : nlohmann::json::object();
    return {f.value("working_dir", std::string("/")), f.value("username", std::string()), f.value("install_dir", std::string()),
            f.value("version", std::string()), f.value("user_id", 1000)};
}

std::map<std::string, std::string> HostEnvironment::settings_from_worker_init(const nlohmann::json &init) {
    std::map<std::string, std::string> settings;
    const nlohmann::json given = init.contains("settings") ? init["settings"] : nlohmann::json::object();
    for (const auto &[k, v] : given.items())
        if (v.is_string()) settings[k] = v.get<std::string>();
    return settings;
}

}  // namespace actionhost::host
