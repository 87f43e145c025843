// ahctl's command line: global options, the command, its arguments; and the help texts.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ahctl {

// Exit codes scripts can rely on (docs/runtimes.md). `run` exits with the command's own exit code.
enum ExitCode : int {
    kOk = 0,
    kActionFailed = 1,     // an error observation, or exec/shell saw at least one failure
    kUsage = 2,            // bad command line
    kConfig = 3,           // config.toml / env override / unknown runtime
    kRuntime = 4,          // the runtime failed to start, pause, resume or stop
    kWire = 5,             // the host could not be reached or refused the request
    kTimedOut = 124,       // `run`: the command did not finish (exit code -1), as timeout(1)
    kInterrupted = 130,    // Ctrl-C (SIGINT) or SIGTERM ended `run`, as a shell reports 128 + SIGINT
};

struct Options {
    std::optional<std::string> config_path;
    std::optional<std::string> runtime;
    std::optional<std::string> workspace;
    std::optional<std::string> session;
    std::optional<std::string> state_dir;
    std::optional<std::string> install_dir;
    std::vector<std::string> plugins;
    std::vector<std::string> plugin_dirs;  // --plugin-dir DIR (repeatable): the host's --plugin-dir
    std::vector<std::string> plugin_refs;  // --plugin REF (repeatable): installed from a registry, loaded at start
    std::vector<std::string> plugin_keys;  // --plugin-key PUB.pem (repeatable): what --plugin REF must be signed by
    std::vector<std::pair<std::string, std::string>> sets;  // --set section.key=value
    std::vector<std::pair<std::string, std::string>> env;   // --env KEY=VALUE (sandbox variables)
    std::optional<std::string> repo;                        // --repo URL[@branch] ([sandbox] selected_repo)
    std::optional<std::string> image;                       // --image REF ([sandbox] base_container_image)
    std::vector<std::string> publish;                       // --publish [[ADDRESS:]MACHINE_PORT:]PORT (network_commands.hpp)
    bool keep = false;
    bool quiet = false;
    bool json = false;
    bool help = false;
    bool version = false;
    std::optional<double> timeout;
    bool all = false;                 // --all: every kept-alive session (stop, run)
    std::optional<size_t> count;      // --count N: how many runtimes `start` starts
    std::optional<size_t> jobs;       // --jobs N: at most N sandboxes started, run or stopped at once
    std::string command;
    std::vector<std::string> args;  // the command's positional words (after its name; all words after `--`)
    // The command's own options by long name ("--cwd" → {"DIR"}; a flag → {}), as its table declares them.
    std::map<std::string, std::vector<std::string>> named;
};

class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Parses argv (CLI11). Global options may come before or after the command name (up to a `--`); each
// command accepts only its own options besides. An unknown option anywhere before `--` is a UsageError
// naming the closest known one ("did you mean --timeout?").
Options parse_command_line(int argc, char **argv);

// The closest of `known` to `word` (a typo: edit distance ≤ 2, or a prefix), "" when none is close.
std::string closest_match(const std::string &word, const std::vector<std::string> &known);

// The help text of `command` ("" = the overview, with the global options). Empty optional for an
// unknown command.
std::optional<std::string> help_text(const std::string &command);

}  // namespace ahctl
