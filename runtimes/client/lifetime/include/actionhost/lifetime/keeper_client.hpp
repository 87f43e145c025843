// The backend's side of a keeper program (keeper_program.hpp): where a session's keeper is recorded,
// starting it detached, asking it, ending it. Used by the `local` and `docker` backends, from the
// client that started the runtime and from any later one of the same session (a kept-alive runtime:
// `ahctl extend`, `ahctl ps`, `ahctl stop`).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::lifetime {

// <state_dir>/<kind>-<session_id>.keeper.json and .keeper.sock: beside the session's kept-alive
// record, in the client's state directory (the caller's own, not the sandbox's to reach).
std::string keeper_record_path(const std::string &state_dir, const std::string &kind, const std::string &session_id);
std::string keeper_socket_path(const std::string &state_dir, const std::string &kind, const std::string &session_id);

// Runs `argv` (argv[0]: the keeper program's path) and waits up to `timeout_s` until the keeper it
// detaches says it is ready. Throws std::runtime_error with the keeper's own sentence.
void start_keeper(const std::vector<std::string> &argv, double timeout_s = 15);

// The record at `record_path` when the keeper it names still runs (its pid, started when recorded).
std::optional<nlohmann::json> running_keeper(const std::string &record_path);

// Ends the keeper of that record — SIGTERM to the very process it names, never to another that got
// its pid — and waits up to `timeout_s` for it to go; removes the record and its socket when the
// keeper could not (killed, say). Nothing happens when there is no record.
void end_keeper(const std::string &record_path, double timeout_s = 5);

// The lifetime state (lifetime_requests.hpp) of the session's runtime as JSON text without "ok", from
// its keeper; a runtime without a running keeper keeps no lifetime: every field null.
std::string keeper_lifetime_state(const std::string &record_path);
// Moves the end `seconds` later through the keeper; the state after. std::invalid_argument for
// seconds out of range or a runtime without a keeper (started without sandbox.lifetime).
std::string keeper_extend(const std::string &record_path, long long seconds);

}  // namespace actionhost::lifetime
