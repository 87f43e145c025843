#include "messages.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "actionhost/common/observation.hpp"
#include <actionhost/common/python_repr.hpp>
#include <actionhost/common/json_write.hpp>

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
    return "\n[The command timed out after " + common::python_repr_float(seconds) + " seconds. " + std::string(kTimeoutHelp) +
           "]";
}

std::string not_executed_suffix(std::string_view command) {
    return "\n[Your command \"" + std::string(command) +
           "\" is NOT executed. The previous command is still running - You CANNOT send new commands until the "
           "previous command is completed. By setting `is_input` to `true`, you can interact with the current "
           "process: " +
           std::string(kTimeoutHelp) + "]";
}


namespace {
std::string dump(const nlohmann::ordered_json &j) {
    return actionhost::common::dump_ordered_json(j);
}

// The values of an observation, in the order its text holds them.
enum Value : size_t {
    kMessage, kContent, kCommand, kExitCode, kPid, kUsername, kHostname, kWorkingDir, kPyInterpreterPath, kPrefix,
    kSuffix, kHidden, kStderr, kSuccess, kValues
};

// The observation's text around its values: between[0], the first value, between[1], ... between[n].
// nlohmann writes it as the document with every value null, cut at the nulls: the keys, their order and
// the punctuation are its own. Made once per process for each of the two shapes (with and without
// extras.stderr), not per writer: every session has one, and so does each one-off observation.
struct Shape {
    std::vector<std::string> between;
    size_t length = 0;  // of all of `between`

    explicit Shape(bool with_stderr) {
        const nlohmann::ordered_json value = nullptr;
        nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
        for (const char *key : {"exit_code", "pid", "username", "hostname", "working_dir", "py_interpreter_path", "prefix", "suffix"})
            metadata[key] = value;
        nlohmann::ordered_json extras = {{"command", value}, {"metadata", std::move(metadata)}, {"hidden", value}};
        if (with_stderr) extras["stderr"] = value;  // after "hidden", as OpenHands orders it
        const nlohmann::ordered_json obs = {{"message", value}, {"observation", "run"}, {"content", value},
                                            {"extras", std::move(extras)}, {"success", value}};
        const std::string text = dump(obs);
        size_t from = 0;
        for (size_t at = text.find("null"); at != std::string::npos; at = text.find("null", from)) {
            between.push_back(text.substr(from, at - from));
            from = at + 4;
        }
        between.push_back(text.substr(from));
        if (between.size() != (with_stderr ? kValues : kValues - 1) + 1)
            throw std::logic_error("a key of the run observation holds \"null\"");
        for (const std::string &b : between) length += b.size();
    }
};

const Shape &shape(bool with_stderr) {
    static const Shape plain(false), with(true);
    return with_stderr ? with : plain;
}

// One value of the observation and the text nlohmann wrote for it. The values a session repeats from
// command to command (user, host, directory, interpreter, exit code, suffix...) are written again only
// when they change (set): escaping them again, with the keys, was most of the 17k instructions an
// observation cost. The command's own texts (message, content, command, stderr) are written each time
// (renew): a session rarely repeats them, and a benchmark sending one command over and over would
// otherwise measure a saving that real sessions never see.
struct Slot {
    nlohmann::ordered_json value;
    std::string text;  // empty: not written yet

    template <class T>
    void set(const T &v) {
        if (text.empty() || !holds(v)) renew(v);
    }
    template <class T>
    void renew(const T &v) {
        // The text is emptied before the value changes: should memory run out in between (in the
        // assignment or in nlohmann's dump), the slot is left unwritten and the next call writes it,
        // rather than a new value being kept beside the old one's text.
        text.clear();
        assign(v);
        text = dump(value);
    }
    // A writer keeps no large text after the observation went out: a hidden command's output may be
    // megabytes, and a refused command's suffix quotes the whole command.
    void let_go_if_large() {
        constexpr size_t kKeptCapacity = 64 * 1024;
        if (text.capacity() > kKeptCapacity || (value.is_string() && value.get_ref<std::string &>().capacity() > kKeptCapacity)) {
            value = nullptr;
            text = std::string();
        }
    }

  private:
    bool holds(const std::string &v) const { return value.is_string() && value.get_ref<const std::string &>() == v; }
    bool holds(const std::optional<std::string> &v) const { return v ? holds(*v) : value.is_null(); }
    bool holds(int v) const { return value.is_number_integer() && value.get<int>() == v; }
    bool holds(bool v) const { return value.is_boolean() && value.get<bool>() == v; }
    void assign(const std::string &v) {
        if (value.is_string()) value.get_ref<std::string &>().assign(v);  // keeps its capacity
        else value = v;
    }
    void assign(const std::optional<std::string> &v) {
        if (v) assign(*v);
        else value = nullptr;
    }
    void assign(int v) { value = v; }
    void assign(bool v) { value = v; }
};
}  // namespace

struct RunObservationWriter::Document {
    Slot slots[kValues];
};

RunObservationWriter::RunObservationWriter() : document_(std::make_unique<Document>()) {}

RunObservationWriter::~RunObservationWriter() = default;

std::string RunObservationWriter::write(const std::string &command, const std::string &content, const RunMetadata &m,
                                        bool hidden) {
    Slot *v = document_->slots;
    v[kMessage].renew(common::run_message(command, m.exit_code));
    v[kContent].renew(content);
    v[kCommand].renew(command);
    v[kExitCode].set(m.exit_code);
    v[kPid].set(m.pid);
    v[kUsername].set(m.username);
    v[kHostname].set(m.hostname);
    v[kWorkingDir].set(m.working_dir);
    v[kPyInterpreterPath].set(m.py_interpreter_path);
    v[kPrefix].set(m.prefix);
    v[kSuffix].set(m.suffix);
    v[kHidden].set(hidden);
    v[kStderr].renew(m.stderr_text);
    v[kSuccess].set(m.exit_code == 0);

    const Shape &s = shape(m.stderr_text.has_value());
    size_t size = s.length;  // room for every value's text: an absent stderr's "null" too, 4 bytes spare
    for (const Slot &slot : document_->slots) size += slot.text.size();
    std::string text;
    text.reserve(size);
    size_t at = 0;
    for (size_t i = 0; i < kValues; ++i) {
        if (i == kStderr && !m.stderr_text) continue;
        text += s.between[at++];
        text += v[i].text;
    }
    text += s.between[at];
    for (Slot &slot : document_->slots) slot.let_go_if_large();
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
