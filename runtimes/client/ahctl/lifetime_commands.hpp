// `ahctl extend SESSION SECONDS` and the time left that `ahctl ps` shows (sandbox.lifetime,
// idle_timeout: docs/runtimes.md, Lifetimes). The kept-alive session is asked without attaching to it,
// so a sandbox its idle timeout paused stays paused.
#pragma once

#include <actionhost/client/runtime.hpp>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli.hpp"

namespace ahctl {

// A runtime for the kept-alive session `sid` (the runtime its record names), not connected; nullptr
// when there is no record of it.
using SessionRuntime = std::function<std::unique_ptr<actionhost::client::Runtime>(const std::string &sid)>;

int cmd_extend(const Options &options, const SessionRuntime &session_runtime);

// "4m59s", "2h10m", "-" (no lifetime), from Runtime::lifetime()'s state.
std::string time_left_text(const nlohmann::json &state);

}  // namespace ahctl
