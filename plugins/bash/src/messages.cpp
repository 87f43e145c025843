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
// vector, without ordered_map's search for an existing key and a null value assigned over. Returns where
// the value sits: it stays there while the object has room (object_for) and when the object itself is
// moved into another (a json holds its object by pointer).
nlohmann::ordered_json *add(nlohmann::ordered_json &object, const char *key, nlohmann::ordered_json value) {
    return &object.get_ref<nlohmann::ordered_json::object_t &>().emplace_back(key, std::move(value)).second;
}

void put(nlohmann::ordered_json &slot, const std::string &value) {
    if (slot.is_string()) slot.get_ref<std::string &>().assign(value);
    else slot = value;
}

void put(nlohmann::ordered_json &slot, const std::optional<std::string> &value) {
    if (value) put(slot, *value);
    else slot = nullptr;
}

// A writer keeps no large text after the observation went out: a hidden command's output may be
// megabytes, and a refused command's suffix quotes the whole command.
void let_go_if_large(nlohmann::ordered_json &slot) {
    constexpr size_t kKeptCapacity = 64 * 1024;
    if (slot.is_string() && slot.get_ref<std::string &>().capacity() > kKeptCapacity) slot = "";
}
}  // namespace

// The observation's shape, and where each value of it sits.
struct RunObservationWriter::Document {
    nlohmann::ordered_json obs;
    nlohmann::ordered_json *message, *content, *success, *extras, *command, *hidden, *exit_code, *pid, *username,
        *hostname, *working_dir, *py_interpreter_path, *prefix, *suffix;

    Document() {
        nlohmann::ordered_json metadata = object_for(8);
        exit_code = add(metadata, "exit_code", nullptr);
        pid = add(metadata, "pid", nullptr);
        username = add(metadata, "username", nullptr);
        hostname = add(metadata, "hostname", nullptr);
        working_dir = add(metadata, "working_dir", nullptr);
        py_interpreter_path = add(metadata, "py_interpreter_path", nullptr);
        prefix = add(metadata, "prefix", nullptr);
        suffix = add(metadata, "suffix", nullptr);
        nlohmann::ordered_json ex = object_for(4);  // room for "stderr": adding it never moves the others
        command = add(ex, "command", "");
        add(ex, "metadata", std::move(metadata));
        hidden = add(ex, "hidden", false);
        obs = object_for(5);
        message = add(obs, "message", "");
        add(obs, "observation", "run");
        content = add(obs, "content", "");
        extras = add(obs, "extras", std::move(ex));
        success = add(obs, "success", false);
    }
};

RunObservationWriter::RunObservationWriter() : document_(std::make_unique<Document>()) {}

RunObservationWriter::~RunObservationWriter() = default;

std::string RunObservationWriter::write(const std::string &command, const std::string &content, const RunMetadata &m,
                                        bool hidden) {
    Document &d = *document_;
    put(*d.message, common::run_message(command, m.exit_code));
    put(*d.content, content);
    put(*d.command, command);
    *d.exit_code = m.exit_code;
    *d.pid = m.pid;
    put(*d.username, m.username);
    put(*d.hostname, m.hostname);
    put(*d.working_dir, m.working_dir);
    put(*d.py_interpreter_path, m.py_interpreter_path);
    put(*d.prefix, m.prefix);
    put(*d.suffix, m.suffix);
    *d.hidden = hidden;
    *d.success = m.exit_code == 0;
    // extras.stderr comes after "hidden", as OpenHands orders it, and goes with this observation even if
    // writing it throws (every other field is put anew by each call).
    struct StderrField {
        nlohmann::ordered_json &extras;
        const bool added;
        StderrField(nlohmann::ordered_json &e, const std::optional<std::string> &text) : extras(e), added(text.has_value()) {
            if (added) add(extras, "stderr", *text);
        }
        ~StderrField() {
            if (added) extras.get_ref<nlohmann::ordered_json::object_t &>().pop_back();
        }
    };
    std::string text;
    {
        const StderrField stderr_field(*d.extras, m.stderr_text);
        text = dump(d.obs);
    }
    for (nlohmann::ordered_json *slot : {d.message, d.content, d.command, d.username, d.hostname, d.working_dir,
                                         d.py_interpreter_path, d.prefix, d.suffix})
        let_go_if_large(*slot);
    return text;
}

std::string run_observation_json(const std::string &command, const std::string &content, const RunMetadata &m,
                                 bool hidden) {
    return RunObservationWriter().write(command, content, m, hidden);
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
