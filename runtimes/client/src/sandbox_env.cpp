#include "actionhost/client/sandbox_env.hpp"

#include <algorithm>
#include <stdexcept>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "actionhost/client/shell_quote.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::client {

using nlohmann::json;

namespace {

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

std::string key_list(const Environment &vars) {
    std::string out;
    for (const auto &[k, v] : vars) out += (out.empty() ? "" : ", ") + k;
    return "[" + out + "]";
}

}  // namespace

Environment normalize_env_vars(const Environment &vars) {
    Environment out;
    for (const auto &[key, value] : vars) {
        std::string k = upper(key);
        if (!is_env_name(k)) throw std::invalid_argument("Invalid environment variable name '" + key + "'");
        if (value.find('\0') != std::string::npos)
            throw std::invalid_argument("The value of " + k + " contains a NUL byte, which no environment can hold");
        try {
            python_str_literal(value);
        } catch (const std::invalid_argument &) {
            throw std::invalid_argument("The value of " + k + " is not valid UTF-8");
        }
        out[k] = value;
    }
    return out;
}

std::string env_script(const Environment &vars) {
    std::string script;
    for (const auto &[k, v] : vars) script += "export " + k + "=" + bash_quote(v) + "\n";
    return script;
}

std::string bashrc_persist_command(const Environment &vars, const std::string &script_path) {
    if (vars.empty()) return "";
    // As OpenHands: `touch ~/.bashrc`, then an `export K=...` line per key; an older line of the key is
    // dropped first so the newest value wins in new shells too (OpenHands keeps the first one).
    std::string cmd = "touch ~/.bashrc";
    for (const auto &[k, v] : vars) cmd += " && sed -i '/^export " + k + "=/d' ~/.bashrc";
    return cmd + " && cat -- " + bash_quote(script_path) + " >> ~/.bashrc";
}

std::string source_env_command(const std::string &script_path, const std::string &private_dir) {
    // No helper variable is left in the agent's shell; the status says whether sourcing worked.
    std::string rm = "rm -rf -- " + bash_quote(private_dir);
    return ". " + bash_quote(script_path) + " && " + rm + " || { " + rm + "; false; }";
}

std::string ipython_environ_code(const Environment &vars, const std::string &json_path) {
    if (vars.empty()) return "";
    // OpenHands writes os.environ["K"] = "<v>" per key; the values are read from the uploaded JSON
    // file instead, so the cell (and the kernel's history) holds none of them.
    // __import__ keeps the user's names (a variable called json or os) untouched.
    return "with __import__(\"builtins\").open(" + python_str_literal(json_path) + ", encoding=\"utf-8\") as _ah_env:\n"
           "    __import__(\"os\").environ.update(__import__(\"json\").load(_ah_env))\ndel _ah_env\n";
}

void add_env_vars(WireClient &wire, const Environment &raw, bool jupyter) {
    Environment vars = normalize_env_vars(raw);
    if (vars.empty()) return;
    // The values cross as an uploaded file in a private directory: no command carries them.
    ShellResult made = run_hidden(wire, "d=$(mktemp -d) && chmod 700 \"$d\" && printf '%s' \"$d\"");
    std::string dir = made.output;
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    if (made.exit_code != 0 || dir.empty() || dir[0] != '/')
        throw RuntimeError("Failed to add env vars " + key_list(vars) + ": no private directory in the sandbox: " + made.output);
    const std::string script = dir + "/env.sh";
    auto fail = [&](const std::string &why) {
        run_hidden(wire, "rm -rf -- " + bash_quote(dir));
        throw RuntimeError("Failed to add env vars " + key_list(vars) + " to " + why);
    };
    try {
        wire.upload_bytes("env.sh", env_script(vars), dir);
    } catch (const WireError &e) {
        fail(std::string("the sandbox: ") + e.what());
    }
    if (jupyter) {
        try {
            wire.upload_bytes("env.json", actionhost::common::dump_json(json(vars)), dir);
        } catch (const WireError &e) {
            fail(std::string("the IPython kernel: ") + e.what());
        }
        json obs;
        try {
            obs = wire.execute({{"action", "run_ipython"},
                                {"args", {{"code", ipython_environ_code(vars, dir + "/env.json")}, {"thought", ""}, {"include_extra", false}}}});
        } catch (const WireError &e) {
            fail(std::string("the IPython kernel: ") + e.what());
        }
        std::string content = obs.value("content", "");
        if (obs.value("observation", "") != "run_ipython" || content.find("Traceback") != std::string::npos ||
            content.find("Error") != std::string::npos)
            fail("the IPython kernel: " + obs.value("observation", "") + " observation");
    }
    ShellResult rc = run_hidden(wire, bashrc_persist_command(vars, script));
    if (rc.exit_code != 0) fail("~/.bashrc: " + rc.output);
    ShellOptions in_session;
    in_session.is_static = false;  // the agent's own shell is the one that must see them
    in_session.timeout_s = 60;
    ShellResult r = run_hidden(wire, source_env_command(script, dir), in_session);
    if (r.exit_code != 0) fail("environment (exit code " + std::to_string(r.exit_code) + ")");
}

Environment initial_sandbox_env(const Config &config) {
    Environment env(config.sandbox_env().begin(), config.sandbox_env().end());
    if (config.get_bool("sandbox.enable_auto_lint")) env["ENABLE_AUTO_LINT"] = "true";
    return env;
}

Environment startup_env_vars(const Config &config) {
    Environment env;
    json startup = config.get("sandbox.runtime_startup_env_vars");
    if (startup.is_object())
        for (auto &[k, v] : startup.items()) env[k] = v.is_string() ? v.get<std::string>() : actionhost::common::dump_json(v);
    return env;
}

}  // namespace actionhost::client
