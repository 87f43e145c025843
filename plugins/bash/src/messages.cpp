#include "messages.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "actionhost/common/observation.hpp"

namespace actionhost::bash {

std::string multiple_commands_error(const std::vector<std::string> &commands) {
    std::string out =
        "ERROR: Cannot execute multiple commands at once.\n"
        "Please run each command separately OR chain them into a single command via && or ;\n"
        "Provided commands:\n";
    for (size_t i = 0; i < commands.size(); ++i) {
        if (i) out += '\n';
        out += "(" + std::to_string(i + 1) + ") " + commands[i];
    }
    return out;
}

std::string completed_suffix(int exit_code) {
    return "\n[The command completed with exit code " + std::to_string(exit_code) + ".]";
}

std::string completed_with_key_suffix(int exit_code, std::string_view key) {
    std::string letter(1, key.empty() ? ' ' : key.back());
    if (letter[0] >= 'a' && letter[0] <= 'z') letter[0] = static_cast<char>(letter[0] - 'a' + 'A');
    return "\n[The command completed with exit code " + std::to_string(exit_code) + ". CTRL+" + letter + " was sent.]";
}

std::string no_change_timeout_suffix(std::string_view seconds_text) {
    return "\n[The command has no new output after " + std::string(seconds_text) + " seconds. " +
           std::string(kTimeoutHelp) + "]";
}

std::string hard_timeout_suffix(double seconds) {
    return "\n[The command timed out after " + python_float_repr(seconds) + " seconds. " + std::string(kTimeoutHelp) +
           "]";
}

std::string not_executed_suffix(std::string_view command) {
    return "\n[Your command \"" + std::string(command) +
           "\" is NOT executed. The previous command is still running - You CANNOT send new commands until the "
           "previous command is completed. By setting `is_input` to `true`, you can interact with the current "
           "process: " +
           std::string(kTimeoutHelp) + "]";
}

std::string python_float_repr(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    // Shortest round-trip digits, then Python's layout: positional for 1e-4 <= |v| < 1e16, else
    // exponent with at least two digits.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    const size_t e = sci.find('e');
    std::string mant = sci.substr(0, e);
    const int exp = std::atoi(sci.c_str() + e + 1);
    std::string sign;
    if (!mant.empty() && mant[0] == '-') {
        sign = "-";
        mant.erase(0, 1);
    }
    std::string digits;
    for (char c : mant)
        if (c != '.') digits += c;
    if (exp >= -4 && exp < 16) {
        std::string out;
        if (exp < 0) {
            out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
        } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
            out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
        } else {
            out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
        }
        return sign + out;
    }
    std::string out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return sign + out + ebuf;
}

namespace {
nlohmann::ordered_json optional_string(const std::optional<std::string> &s) {
    return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json(nullptr);
}
std::string dump(const nlohmann::ordered_json &j) {
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}
// An ordered object with room for `fields`: ordered_json keeps an object's fields in a vector of
// pair<const string, json>, which cannot be moved, so each growth of the vector deep-copied every field
// already in (the metadata object again for each field added after it): half of building an observation.
nlohmann::ordered_json object_for(size_t fields) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j.get_ref<nlohmann::ordered_json::object_t &>().reserve(fields);
    return j;
}
// Appends a field to an object built here, whose keys are distinct by construction: straight onto its
// vector, without ordered_map's search for an existing key and a null value assigned over.
void add(nlohmann::ordered_json &object, const char *key, nlohmann::ordered_json value) {
    object.get_ref<nlohmann::ordered_json::object_t &>().emplace_back(key, std::move(value));
}
}  // namespace

std::string run_observation_json(const std::string &command, const std::string &content, const RunMetadata &m,
                                 bool hidden) {
    nlohmann::ordered_json metadata = object_for(8);
    add(metadata, "exit_code", m.exit_code);
    add(metadata, "pid", m.pid);
    add(metadata, "username", optional_string(m.username));
    add(metadata, "hostname", optional_string(m.hostname));
    add(metadata, "working_dir", optional_string(m.working_dir));
    add(metadata, "py_interpreter_path", optional_string(m.py_interpreter_path));
    add(metadata, "prefix", m.prefix);
    add(metadata, "suffix", m.suffix);
    nlohmann::ordered_json extras = object_for(4);
    add(extras, "command", command);
    add(extras, "metadata", std::move(metadata));
    add(extras, "hidden", hidden);
    if (m.stderr_text) add(extras, "stderr", *m.stderr_text);
    nlohmann::ordered_json obs = object_for(5);
    add(obs, "message", common::run_message(command, m.exit_code));
    add(obs, "observation", "run");
    add(obs, "content", content);
    add(obs, "extras", std::move(extras));
    add(obs, "success", m.exit_code == 0);
    return dump(obs);
}

std::string error_observation_json(const std::string &content) {
    nlohmann::ordered_json obs;
    obs["message"] = content;
    obs["observation"] = "error";
    obs["content"] = content;
    obs["extras"] = {{"error_id", ""}};
    return dump(obs);
}

}  // namespace actionhost::bash
