#include "actionhost/common/log.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::common {

const char *level_name(LogLevel level) {
    switch (level) {
        case LogLevel::Debug: return "DEBUG";
        case LogLevel::Info: return "INFO";
        case LogLevel::Warning: return "WARNING";
        case LogLevel::Error: return "ERROR";
        case LogLevel::PluginMisbehaving: return "PLUGIN-MISBEHAVING";
    }
    return "INFO";
}

LogFormat log_format_from_environment() {
    const char *v = std::getenv("LOG_JSON");
    const std::string_view s = v ? v : "";
    return s == "1" || s == "true" || s == "True" ? LogFormat::Json : LogFormat::Text;
}

bool debug_logging_enabled() { return std::getenv("DEBUG") != nullptr; }

std::string format_log_line(LogLevel level, std::string_view source, std::string_view message, LogFormat format) {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char ts[32];
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (format == LogFormat::Json)
        return dump_json(nlohmann::json{{"time", ts}, {"level", level_name(level)}, {"source", source}, {"message", message}}) + "\n";
    std::string line = std::string(ts) + " " + level_name(level) + " [";
    line.append(source).append("] ").append(message).append("\n");
    return line;
}

void log_to_stderr(LogLevel level, std::string_view source, std::string_view message, LogFormat format) {
    if (level == LogLevel::Debug && !debug_logging_enabled()) return;
    const std::string line = format_log_line(level, source, message, format);
    (void)!::write(2, line.data(), line.size());
}

}  // namespace actionhost::common
