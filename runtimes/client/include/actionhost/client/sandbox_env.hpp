// Environment variables of the sandbox, set after the host is alive, the same way for every backend
// (OpenHands' Runtime.add_env_vars / setup_initial_env):
//   - the IPython kernel, when the jupyter plugin is loaded: os.environ updated from a JSON file;
//   - the agent's bash session: the `export K=<v>` lines, sourced from a file;
//   - ~/.bashrc: one `export K=<v>` line per key, replacing an older line of that key, so a new shell
//     (a named session, a restarted shell, a resumed sandbox) starts with it.
// The values travel in a file uploaded into a private temporary directory (removed at once), never in a
// command: they land in no shell history and no command echo (OpenHands sends `export K=...` as the
// command). Keys are upper-cased as OpenHands does. Values are quoted with bash_quote /
// python_str_literal, so any value — quotes, newlines, `$`, backticks, unicode — arrives byte for byte
// (OpenHands' json.dumps into bash double quotes does not: see docs/compat.md).
#pragma once

#include <string>

#include "actionhost/client/config.hpp"
#include "actionhost/client/wire_client.hpp"

namespace actionhost::client {

// Upper-cases keys and checks them ([A-Z_][A-Z0-9_]*) and their values (valid UTF-8, no NUL byte).
// Throws std::invalid_argument naming the offending key (never its value).
Environment normalize_env_vars(const Environment &vars);

// What add_env_vars sends, for already normalised vars:
// the file: one `export K=<quoted>` line per key ("" when vars is empty);
std::string env_script(const Environment &vars);
// the static command that drops older lines of these keys from ~/.bashrc and appends `script_path`;
std::string bashrc_persist_command(const Environment &vars, const std::string &script_path);
// the command the agent's session runs: source the file, remove its directory, keep the status;
std::string source_env_command(const std::string &script_path, const std::string &private_dir);
// the kernel cell, which loads the uploaded {"K": "v"} file at json_path into os.environ ("" when
// vars is empty).
std::string ipython_environ_code(const Environment &vars, const std::string &json_path);

// Sets `vars` in the sandbox: the kernel (when `jupyter`), the default bash session, ~/.bashrc.
// Throws std::invalid_argument for a bad key/value, RuntimeError when a command fails (the error
// names the keys, never the values), WireError when the host cannot be reached.
void add_env_vars(WireClient &wire, const Environment &vars, bool jupyter);

// The initial sandbox environment OpenHands gives every runtime: SANDBOX_ENV_<X> → <X> (captured by
// Config::apply_env), plus ENABLE_AUTO_LINT=true when [sandbox] enable_auto_lint.
Environment initial_sandbox_env(const Config &config);
// [sandbox] runtime_startup_env_vars as strings (non-string TOML values rendered as JSON).
Environment startup_env_vars(const Config &config);

}  // namespace actionhost::client
