// The one logging API of the host, the plugins and the client: a level, a sink, and one way of writing
// a line (plain text or JSON lines, chosen by LOG_JSON). Modules log through their C host services
// (`log` with an ah_log_level_t); this is what sits on either side of that call.
#pragma once

#include <actionhost/abi.h>

#include <functional>
#include <string>
#include <string_view>

namespace actionhost::common {

// The levels of ah_log_level_t (sdk/include/actionhost/abi.h), value for value.
enum class LogLevel : ah_log_level_t {
    Debug = AH_LOG_DEBUG,
    Info = AH_LOG_INFO,
    Warning = AH_LOG_WARNING,
    Error = AH_LOG_ERROR,
    PluginMisbehaving = AH_LOG_PLUGIN_MISBEHAVING,  // a module broke the ABI contract
};

constexpr ah_log_level_t to_abi(LogLevel level) { return static_cast<ah_log_level_t>(level); }
// A module's level; a value outside the enum (a module built against a newer header) logs as Info.
constexpr LogLevel from_abi(ah_log_level_t level) {
    return level >= AH_LOG_DEBUG && level <= AH_LOG_PLUGIN_MISBEHAVING ? static_cast<LogLevel>(level) : LogLevel::Info;
}

// "DEBUG", "INFO", "WARNING", "ERROR", "PLUGIN-MISBEHAVING".
const char *level_name(LogLevel level);

// Where log lines go: a level and the message (which names its source). Called from any thread.
using LogSink = std::function<void(LogLevel level, const std::string &message)>;

enum class LogFormat { Text, Json };

// LOG_JSON=1/true/True in the environment: JSON lines (what OpenHands' log shippers read); else text.
LogFormat log_format_from_environment();
// Debug lines are written only with DEBUG set in the environment (as OpenHands' runtime does).
bool debug_logging_enabled();

// One line, newline included: "2026-01-02T03:04:05Z WARNING [source] message" or
// {"time":"...","level":"WARNING","source":"source","message":"..."} (invalid UTF-8 replaced).
std::string format_log_line(LogLevel level, std::string_view source, std::string_view message, LogFormat format);

// Writes one formatted line to stderr in a single write, so lines of threads never interleave. Debug
// lines only when debug_logging_enabled().
void log_to_stderr(LogLevel level, std::string_view source, std::string_view message,
                   LogFormat format = LogFormat::Text);

}  // namespace actionhost::common
