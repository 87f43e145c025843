#include "cli_command.hpp"

#include <unistd.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "messages.hpp"
#include <actionhost/common/process/shell_identity.hpp>

namespace actionhost::bash {

namespace {

// Runs $2 with `eval` (so `cd`, `export` and `exit` act on this shell), and on exit writes the shell's
// directory and exported environment, NUL-separated, to the file $1. A command that replaces the shell
// (`exec`) or installs its own EXIT trap leaves the session state as it was.
constexpr const char *kWrapper =
    "__ah_cli_state=$1; __ah_cli_command=$2; set --\n"
    "trap '{ printf \"%s\\0\" \"$PWD\"; env -0; } > \"$__ah_cli_state\" 2>/dev/null' EXIT\n"
    "eval \"$__ah_cli_command\"\n";

std::string env_value(const std::vector<std::string> &env, const std::string &key) {
    for (const auto &kv : env)
        if (kv.size() > key.size() && kv.compare(0, key.size(), key) == 0 && kv[key.size()] == '=')
            return kv.substr(key.size() + 1);
    return "";
}

// Reads the state file the wrapper wrote; false when there is none (the shell was killed or exec'd).
bool read_end_state(const std::string &path, CliShellState &state) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> fields;
    size_t pos = 0;
    while (pos < data.size()) {
        const size_t nul = data.find('\0', pos);
        if (nul == std::string::npos) break;  // an incomplete record: ignore it
        fields.push_back(data.substr(pos, nul - pos));
        pos = nul + 1;
    }
    std::error_code ec;
    if (fields.empty() || !std::filesystem::is_directory(fields[0], ec)) return false;
    state.cwd = fields[0];
    state.env.clear();
    for (size_t i = 1; i < fields.size(); ++i) {
        const std::string &kv = fields[i];
        // Bash's own bookkeeping: SHLVL would grow by one per command, `_` and PWD are set afresh.
        if (kv.rfind("SHLVL=", 0) == 0 || kv.rfind("_=", 0) == 0 || kv.rfind("PWD=", 0) == 0) continue;
        if (kv.find('=') == std::string::npos) continue;
        state.env.push_back(kv);
    }
    return true;
}

}  // namespace

std::string cli_input_refused_json(const std::string &command) {
    return common::dump_json(common::error_observation(
        "CLIRuntime does not support interactive input from the agent (e.g., 'C-c'). The command '" + command +
            "' was not sent to any process.",
        "AGENT_ERROR$BAD_ACTION"));
}

std::string cli_timeout_suffix(double seconds) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", seconds);
    return std::string("\n[The command timed out after ") + buf + " seconds.]";
}

std::string run_cli_command(const RunRequest &rq, const StaticContext &ctx, CliShellState &state,
                            const std::string &scratch_dir, const EmitFn &emit) {
    if (rq.is_input) return cli_input_refused_json(rq.command);
    const SessionConfig &cfg = *ctx.config;
    if (state.cwd.empty()) state.cwd = cfg.working_dir;
    if (state.env.empty()) state.env = cfg.identity->env;

    std::filesystem::path dir = rq.cwd ? std::filesystem::path(*rq.cwd) : std::filesystem::path(state.cwd);
    if (dir.is_relative()) dir = std::filesystem::path(state.cwd) / dir;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        // The session's directory was removed by a command: start where the workspace is, as a fresh
        // CLIRuntime command would.
        if (rq.cwd) return error_observation_json("ERROR: Work dir " + dir.string() + " does not exist.");
        dir = cfg.working_dir;
    }

    static std::atomic<unsigned long> counter{0};
    const std::string state_file = scratch_dir + "/end-state-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    common::ShellIdentity identity = *cfg.identity;
    identity.env = state.env;
    common::SpawnSpec spec;
    spec.program = cfg.bash_path;
    spec.argv = {"bash", "-c", kWrapper, "bash", state_file, rq.command};
    spec.identity = &identity;
    spec.working_dir = dir.string();
    spec.use_pty = false;
    auto started = common::ChildProcess::spawn(spec);
    if (!started) return error_observation_json("ERROR: " + started.error().message);
    const std::unique_ptr<common::ChildProcess> &child = started.value();

    // CLIRuntime has no no-change timeout; its hard timeout is the action's (the client always sets one).
    const ChildOutcome done = collect_child(*child, {false, rq.timeout, cli_timeout_suffix, rq.hidden}, ctx, emit);
    if (done.kill_suffix.empty() && !done.stopped) read_end_state(state_file, state);
    std::filesystem::remove(state_file, ec);
    if (done.stopped) return error_observation_json("ERROR: The bash plugin is shutting down.");

    RunMetadata m;
    m.exit_code = done.exit_code;
    m.username = cfg.identity->username;
    m.hostname = short_hostname();
    m.working_dir = done.kill_suffix.empty() ? state.cwd : dir.string();
    m.py_interpreter_path = common::find_on_path("python", env_value(state.env, "PATH"), {m.working_dir.value_or(""), &identity});
    m.suffix = done.kill_suffix.empty() ? completed_suffix(done.exit_code) : done.kill_suffix;
    return run_observation_json(rq.command, done.content, m, rq.hidden);
}

}  // namespace actionhost::bash
