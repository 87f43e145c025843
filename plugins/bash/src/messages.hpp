// The exact wire texts of OpenHands' bash session (openhands/runtime/utils/bash.py) and the `run`
// observation they go in.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actionhost::bash {

inline constexpr std::string_view kNoPreviousCommandLogs = "ERROR: No previous running command to retrieve logs from.";
inline constexpr std::string_view kNoPreviousCommandInput = "ERROR: No previous running command to interact with.";
inline constexpr std::string_view kContinuePrefix = "[Below is the output of the previous command.]\n";
inline constexpr std::string_view kTimeoutHelp =
    "You may wait longer to see additional output by sending empty command '', send other commands to interact "
    "with the current process, send keys (\"C-c\", \"C-z\", \"C-d\") to interrupt/kill the previous command before "
    "sending your new command, or use the timeout parameter in execute_bash for future commands.";

std::string multiple_commands_error(const std::vector<std::string> &commands);
std::string completed_suffix(int exit_code);
// `key` is the special key command as sent, e.g. "C-c" (its last letter is shown upper-cased).
std::string completed_with_key_suffix(int exit_code, std::string_view key);
std::string no_change_timeout_suffix(std::string_view seconds_text);
std::string hard_timeout_suffix(double seconds);
std::string not_executed_suffix(std::string_view command);

// CmdOutputMetadata; the optional fields are null in OpenHands' default metadata (timeouts, errors).
struct RunMetadata {
    int exit_code = -1;
    int pid = -1;
    std::optional<std::string> username;
    std::optional<std::string> hostname;
    std::optional<std::string> working_dir;
    std::optional<std::string> py_interpreter_path;
    std::string prefix;
    std::string suffix;
    // Not metadata: a command sent with separate_stderr puts its stderr in extras.stderr (after
    // "hidden"), and only its stdout in the content.
    std::optional<std::string> stderr_text;
};

// Writes CmdOutputObservations as OpenHands serialises them (their fields in OpenHands' order), as compact
// JSON text, every byte of it written by nlohmann: the text around the values once (the document with
// every value null, cut at the nulls), and each value when it is put in. Values that a session repeats
// from command to command (user, host, directory, interpreter, exit code, suffix...) keep their text
// until they change; the command's own texts are written each time. Writing the whole document for
// each `echo hi` cost 17k instructions, most of them escaping the same keys and values again. Not
// thread-safe: one owner, one thread at a time (a session's, under its lock). Not thread_local: a
// thread_local of a dlopen'ed library trips ThreadSanitizer (see BashSession::read_buffer_).
class RunObservationWriter {
  public:
    RunObservationWriter();
    ~RunObservationWriter();
    RunObservationWriter(const RunObservationWriter &) = delete;
    RunObservationWriter &operator=(const RunObservationWriter &) = delete;
    std::string write(const std::string &command, const std::string &content, const RunMetadata &metadata, bool hidden);

  private:
    struct Document;
    std::unique_ptr<Document> document_;
};

// One observation, by a writer of its own (for callers that write one now and then).
std::string run_observation_json(const std::string &command, const std::string &content, const RunMetadata &metadata,
                                 bool hidden);
// An `error` observation.
std::string error_observation_json(const std::string &content);

}  // namespace actionhost::bash
