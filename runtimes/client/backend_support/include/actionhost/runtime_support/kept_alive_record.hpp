// The record a backend leaves beside a host it keeps running (keep_runtime_alive), so that a later
// client of the same session id reattaches instead of starting another sandbox.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace actionhost::runtime_support {

// <state_dir>/<kind>-<session_id>.backend.json
std::string kept_alive_record_path(const std::string &state_dir, const std::string &kind, const std::string &session_id);
// The client library's record of the session (client/state_store.hpp: <state_dir>/<id>.json, the id's
// characters outside [A-Za-z0-9._-] as '_'): what a runtime that ends by itself removes too, so that
// `ahctl ps` no longer lists it.
std::string client_record_path(const std::string &state_dir, const std::string &session_id);

// Whether what a record names still runs: its "run_dir" still owned (owned_dir.hpp), else the process
// "pid" (started at "pid_start" in boot "boot_id" when those are recorded).
bool kept_alive_record_is_live(const nlohmann::json &record);

// The record at `path` when it parses and what it names still runs (kept_alive_record_is_live); a
// record whose process is gone is removed (it can never be attached to again).
std::optional<nlohmann::json> load_kept_alive_record(const std::string &path);

// The record at `path` when its process is gone (the host was killed, ran out of memory, the machine
// restarted), removed from disk: what it names (the workspace) lets a backend start a new host in the
// dead one's place instead of losing the session's files. nullopt when there is none or it still runs.
std::optional<nlohmann::json> take_dead_kept_alive_record(const std::string &path);

void save_kept_alive_record(const std::string &path, const nlohmann::json &record);

}  // namespace actionhost::runtime_support
