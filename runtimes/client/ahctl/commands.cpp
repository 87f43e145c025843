#include "commands.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/file_copy.hpp>
#include <actionhost/client/fleet.hpp>
#include <actionhost/client/plugins.hpp>
#include <actionhost/client/registry.hpp>
#include <actionhost/client/runtime.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/common/text.hpp>
#include <algorithm>
#include <atomic>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "image_commands.hpp"
#include "plugin_commands.hpp"
#include "lifetime_commands.hpp"
#include "audit_commands.hpp"
#include "network_commands.hpp"
#include "ops_commands.hpp"
#include "live_run.hpp"
#include "progress.hpp"
#include "style.hpp"
#include "terminal_commands.hpp"
#include "workspace_commands.hpp"
#include <actionhost/common/json_write.hpp>

namespace ahctl {

using namespace actionhost::client;
using nlohmann::json;
using actionhost::common::printable_name;
using actionhost::common::printable_for_terminal;

namespace {

std::string join(const std::vector<std::string> &words, size_t from = 0) {
    std::string out;
    for (size_t i = from; i < words.size(); ++i) out += (i > from ? " " : "") + words[i];
    return out;
}

// A string field, or `fallback` when it is missing, null or not a string (observations may carry nulls).
std::string text_of(const json &j, const char *key, const std::string &fallback = "") {
    if (!j.is_object()) return fallback;
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string read_stdin() {
    std::ostringstream s;
    s << std::cin.rdbuf();
    return s.str();
}

json parse_set_value(const std::string &text) {
    try {
        return json::parse(text);
    } catch (...) {
        return text;
    }
}

}  // namespace

Config load_config(const Options &o, const Environment &env) {
    Config config = Config::load(o.config_path, env);
    // Once per process: the configuration is loaded again by each step that needs it.
    static std::atomic<bool> told{false};
    if (!o.quiet && !config.ignored_keys().empty() && !told.exchange(true)) {
        const auto &unknown = config.unknown_keys();
        std::string keys;
        for (const auto &k : config.ignored_keys())
            keys += (keys.empty() ? "" : ", ") + k +
                    (std::find(unknown.begin(), unknown.end(), k) != unknown.end() ? " (not OpenHands' either)" : "");
        std::cerr << "ahctl: ignoring OpenHands settings actionhost does not use: " << keys << "\n";
    }
    if (o.runtime) config.set("core.runtime", *o.runtime);
    if (o.workspace) {
        std::error_code ec;
        if (!std::filesystem::is_directory(*o.workspace, ec))
            throw UsageError("workspace " + *o.workspace + " is not a directory (create it first; -w never does)");
        config.set("core.workspace_base", *o.workspace);
        // ./config.toml read implicitly must not lie in the workspace this start gives the agent.
        if (!o.config_path) Config::check_implicit_config("config.toml", *o.workspace);
    }
    if (o.state_dir) config.set("core.state_dir", *o.state_dir);
    if (o.keep) config.set("sandbox.keep_runtime_alive", true);
    if (o.repo) config.set("sandbox.selected_repo", *o.repo);
    if (o.image) config.set("sandbox.base_container_image", *o.image);
    for (const auto &[k, v] : o.sets) {
        json value = parse_set_value(v);
        try {
            config.set(k, value);
        } catch (const ConfigError &) {
            config.set(k, v);  // e.g. a string field given a number-looking text
        }
    }
    return config;
}

namespace {

std::string state_dir_of(const Config &config) { return StateStore::default_dir(config.get_text("core.state_dir")); }

// What every runtime of this command starts from: the configuration, install dir, plugins, the
// sandbox's variables, warnings to stderr. No progress line (several runtimes may start at once).
RuntimeOptions base_runtime_options(const Options &o, Config config) {
    RuntimeOptions ro;
    ro.install_dir = o.install_dir.value_or("");
    ro.plugins = o.plugins;
    ro.plugin_dirs = o.plugin_dirs;
    for (const auto &[k, v] : o.env) ro.sandbox_env[k] = v;
    ro.on_log = [quiet = o.quiet](int level, const std::string &msg) {
        if (level >= 2 && !quiet) std::cerr << "[ahctl] " + msg + "\n";
    };
    ro.config = std::move(config);
    return ro;
}

// --plugin REF: each plugin installed from its registry into <state dir>/plugins (with what it
// requires), that directory given to the host, and the plugin loaded at start. Before the runtime
// starts: a refused plugin (signature, ABI, platform, range) starts nothing.
void add_registry_plugins(const Options &o, RuntimeOptions &ro) {
    if (o.plugin_refs.empty()) return;
    const std::string dir = state_dir_of(ro.config) + "/plugins";
    for (const auto &ref : o.plugin_refs) {
        const auto installed = install_plugin(ro.config, {ref, dir, o.plugin_keys}, [quiet = o.quiet](const std::string &line) {
            if (!quiet) std::cerr << "[ahctl] " << actionhost::common::printable_for_terminal(line) << "\n";
        });
        if (!installed.empty() && std::find(ro.plugins.begin(), ro.plugins.end(), installed.back().name) == ro.plugins.end())
            ro.plugins.push_back(installed.back().name);
    }
    if (std::find(ro.plugin_dirs.begin(), ro.plugin_dirs.end(), dir) == ro.plugin_dirs.end()) ro.plugin_dirs.push_back(dir);
}

// Starts (or reattaches to) the runtime the options select, drawing the progress line.
std::vector<PortRequest> publish_requests(const Options &o) {
    std::vector<PortRequest> out;
    for (const auto &spec : o.publish) out.push_back(parse_publish(spec));
    return out;
}

// --publish: a sandbox this command started whose port cannot be published is stopped (nothing is left
// half made); a kept-alive one it only reattached to stays as it was.
void publish_or_stop(Runtime &rt, const std::vector<PortRequest> &requests, bool started_here) {
    try {
        publish_requested(rt, requests);
    } catch (...) {
        if (started_here) {
            try {
                rt.stop_kept_alive();
            } catch (...) {
            }
        }
        throw;
    }
}

std::unique_ptr<Runtime> open_runtime(const Options &o, bool keep = false) {
    publish_requests(o);  // a bad --publish is a usage error before any sandbox starts
    Environment env = current_environment();
    Config config = load_config(o, env);
    if (keep) config.set("sandbox.keep_runtime_alive", true);
    if (o.session) {
        // A kept-alive session: same runtime, and it stays alive after this command.
        if (auto record = StateStore(state_dir_of(config)).get(*o.session)) {
            if (!o.runtime) config.set("core.runtime", record->value("runtime", config.runtime()));
            config.set("sandbox.keep_runtime_alive", true);
        } else if (!o.keep && !keep) {
            // A typo must not start a fresh sandbox that looks like the old one; --keep names a new one.
            throw UsageError("no kept-alive runtime with session id " + *o.session +
                             " (ahctl ps lists them; --keep -s ID starts one of that id)");
        }
    }
    std::string name = select_runtime_name(config, env);
    const bool reattaching = o.session && StateStore(state_dir_of(config)).get(*o.session).has_value();
    RuntimeOptions ro = base_runtime_options(o, std::move(config));
    if (!reattaching) add_registry_plugins(o, ro);
    ro.session_id = o.session.value_or("");
    auto progress = std::make_shared<Progress>(name, !o.quiet);
    ro.on_status = [progress](const std::string &s, const std::string &d) { progress->on_status(s, d); };
    std::unique_ptr<Runtime> rt;
    try {
        rt = Runtime::create(std::move(ro));
        rt->connect();
    } catch (...) {
        progress->finish();
        throw;
    }
    progress->finish();
    publish_or_stop(*rt, publish_requests(o), !o.session);
    return rt;
}

void print_content(const json &obs, bool as_json) {
    if (as_json) {
        std::cout << actionhost::common::dump_json(obs) << "\n";
        return;
    }
    std::string content = text_of(obs, "content");
    std::cout << content;
    if (!content.empty() && content.back() != '\n') std::cout << "\n";
    std::cout.flush();
}

json with_timeout(json action, const Options &o) {
    if (o.timeout) action["timeout"] = *o.timeout;
    return action;
}

// A command's positional words and its own options (parsed by cli.cpp).
struct CommandArgs {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> named;
};

CommandArgs split_args(const Options &o) { return {o.args, o.named}; }

int exit_for_observation(const json &obs) {
    std::string kind = text_of(obs, "observation");
    if (kind == "error") return kActionFailed;
    if (kind == "run") {
        int code = exit_code_of(obs);
        return code < 0 ? kTimedOut : code;
    }
    if (kind == "run_ipython") return obs.value("success", true) ? kOk : kActionFailed;
    std::string content = text_of(obs, "content");
    if (content.rfind("ERROR:", 0) == 0) return kActionFailed;
    return kOk;
}

// The kept-alive sessions of the state directory, in session order.
std::vector<std::string> kept_alive_sessions(const Config &config) {
    std::vector<std::string> ids;
    for (const auto &r : StateStore(state_dir_of(config)).list()) ids.push_back(r.value("session_id", ""));
    return ids;
}

// `run --all`: the command in every kept-alive session at once, each one's exit code reported.
int run_everywhere(const Options &o, const json &action) {
    if (o.session) throw UsageError("run --all runs in every kept-alive runtime: it takes no --session");
    Config config = load_config(o, current_environment());
    std::vector<std::string> ids = kept_alive_sessions(config);
    auto results = execute_in_sessions(base_runtime_options(o, config), ids, action, o.jobs.value_or(0));
    bool all_zero = true;
    for (const auto &r : results) {
        const int code = r.error.empty() ? exit_for_observation(r.observation) : kWire;
        all_zero = all_zero && code == 0;
        if (o.json) {
            json line = {{"session_id", r.session_id}, {"exit_code", code}, {"observation", r.observation}};
            if (!r.error.empty()) line["error"] = r.error;
            std::cout << actionhost::common::dump_json(line) << "\n";
            continue;
        }
        std::cout << "== " << r.session_id << " exit " << code << "\n";
        if (!r.error.empty()) {
            std::cerr << "[ahctl] " << r.session_id << ": " << printable_for_terminal(r.error) << "\n";
            continue;
        }
        print_content(r.observation, false);
        // A command without the terminal (ahctl's default) has its stderr apart.
        const json &extras = r.observation.value("extras", json::object());
        if (const auto err = extras.is_object() ? extras.find("stderr") : extras.end(); err != extras.end() && err->is_string() && !err->get<std::string>().empty())
            std::cerr << err->get<std::string>() << (err->get<std::string>().back() == '\n' ? "" : "\n");
    }
    std::cout.flush();
    return all_zero ? kOk : kActionFailed;
}

int cmd_run(const Options &o) {
    auto a = split_args(o);
    if (a.positional.empty()) throw UsageError("run needs a command: ahctl run -- 'echo hi'");
    const bool agent = a.named.count("--agent") > 0;
    const bool tty = a.named.count("--tty") > 0;
    const bool interactive = a.named.count("-i,--interactive") > 0;
    if (!agent && (a.named.count("--is-input") || a.named.count("--blocking")))
        throw UsageError("--is-input and --blocking belong to the agent's semantics: add --agent");
    if (agent && (tty || interactive))
        throw UsageError("--tty and -i are for a command run like docker run; --agent always runs on the session's terminal");
    if (tty && interactive)
        throw UsageError("-i with --tty: for a terminal you type into, use `ahctl shell` (ahctl run -i forwards stdin to a command without one)");
    if (o.all && interactive) throw UsageError("-i forwards stdin to one command: it does not go with --all");
    json args = {{"command", join(a.positional)}, {"is_input", a.named.count("--is-input") > 0},
                 {"blocking", a.named.count("--blocking") > 0}};
    if (a.named.count("--cwd")) args["cwd"] = a.named["--cwd"][0];
    if (o.all) {
        if (!tty) args["tty"] = false;
        return run_everywhere(o, with_timeout({{"action", "run"}, {"args", args}}, o));
    }
    if (!agent) return run_live(o, &open_runtime, args, LiveRunMode{tty, interactive});
    auto rt = open_runtime(o);
    json obs = rt->execute(with_timeout({{"action", "run"}, {"args", args}}, o));
    rt->close();
    print_content(obs, o.json);
    if (!o.json && obs.value("observation", "") == "run") {
        std::string suffix = text_of(obs["extras"].value("metadata", json::object()), "suffix");
        if (exit_code_of(obs) < 0 && !suffix.empty()) std::cerr << actionhost::common::printable_for_terminal(suffix) << "\n";
    }
    if (!o.json && obs.value("observation", "") == "error") std::cerr << "[ahctl] error observation\n";
    return exit_for_observation(obs);
}

// IPython reports a cell's exception only as text (the observation says success as OpenHands does);
// it also sets sys.last_value, which these two cells clear before and read after the user's code.
constexpr const char *kClearRaised = "__import__('sys').__dict__.pop('last_value', None)";
constexpr const char *kAskRaised =
    "print('raised' if __import__('sys').__dict__.get('last_value') is not None else 'clean', end='')";

int cmd_ipython(const Options &o) {
    if (o.args.empty()) throw UsageError("ipython needs code: ahctl ipython 'print(1)'");
    std::string code = o.args.size() == 1 && o.args[0] == "-" ? read_stdin() : join(o.args);
    auto cell = [&](const std::string &text) {
        return with_timeout({{"action", "run_ipython"}, {"args", {{"code", text}, {"include_extra", false}}}}, o);
    };
    auto rt = open_runtime(o);
    json cleared = rt->execute(cell(kClearRaised));
    json obs = rt->execute(cell(code));
    const bool raised = cleared.value("observation", "") == "run_ipython" &&
                        text_of(rt->execute(cell(kAskRaised)), "content") == "raised";
    rt->close();
    print_content(obs, o.json);
    const int code_of_obs = exit_for_observation(obs);
    return code_of_obs == kOk && raised ? kActionFailed : code_of_obs;
}

// The editor's failure texts open with OpenHands' "ERROR:" line, which "ahctl: error:" says already.
std::string without_error_line(const std::string &text) {
    if (text.rfind("ERROR:", 0) != 0) return text;
    const size_t rest = text.find_first_not_of(" \n", 6);
    return rest == std::string::npos ? text : text.substr(rest);
}

int cmd_edit(const Options &o) {
    auto a = split_args(o);
    if (a.positional.size() != 2) throw UsageError("edit needs COMMAND and PATH: ahctl edit view /workspace/f.txt");
    const std::string &command = a.positional[0], &path = a.positional[1];
    static const std::set<std::string> kEditorCommands = {"view", "create", "str_replace", "insert", "undo_edit"};
    if (!kEditorCommands.count(command))
        throw UsageError("unknown edit command " + command + ": view, create, str_replace, insert or undo_edit");
    auto text = [&](const std::string &name) -> json {
        if (!a.named.count(name)) return nullptr;
        std::string v = a.named[name][0];
        return v == "-" ? read_stdin() : v;
    };
    json action;
    if (command == "view") {
        json args = {{"path", path}, {"impl_source", "oh_aci"}};
        if (a.named.count("--view-range")) {
            try {
                args["view_range"] = {std::stoi(a.named["--view-range"][0]), std::stoi(a.named["--view-range"][1])};
            } catch (...) {
                throw UsageError("--view-range needs two line numbers");
            }
        }
        action = {{"action", "read"}, {"args", args}};
    } else {
        json args = {{"command", command}, {"path", path}, {"impl_source", "oh_aci"}};
        for (const auto &[flag, key] : std::vector<std::pair<std::string, std::string>>{
                 {"--file-text", "file_text"}, {"--old-str", "old_str"}, {"--new-str", "new_str"}})
            if (a.named.count(flag)) args[key] = text(flag);
        if (a.named.count("--insert-line")) {
            std::string v = a.named["--insert-line"][0];
            try {
                args["insert_line"] = std::stoi(v);
            } catch (...) {
                args["insert_line"] = v;  // the host answers OpenHands' "Invalid insert_line value" error
            }
        }
        action = {{"action", "edit"}, {"args", args}};
    }
    auto rt = open_runtime(o);
    json obs = rt->execute(with_timeout(action, o));
    rt->close();
    const int code = exit_for_observation(obs);
    if (o.json || code == kOk) {
        print_content(obs, o.json);
        return code;
    }
    std::cerr << red("ahctl: error:") << " " << printable_for_terminal(without_error_line(text_of(obs, "content"))) << "\n";  // as read's
    return code;
}

int cmd_read(const Options &o) {
    auto a = split_args(o);
    if (a.positional.size() != 1) throw UsageError("read needs PATH");
    json args = {{"path", a.positional[0]}};
    try {
        if (a.named.count("--start")) args["start"] = std::stoi(a.named["--start"][0]);
        if (a.named.count("--end")) args["end"] = std::stoi(a.named["--end"][0]);
    } catch (...) {
        throw UsageError("--start/--end need line numbers");
    }
    auto rt = open_runtime(o);
    json obs = rt->execute(with_timeout({{"action", "read"}, {"args", args}}, o));
    rt->close();
    const int code = exit_for_observation(obs);
    if (o.json) print_content(obs, true);
    else if (code != kOk) std::cerr << red("ahctl: error:") << " " << printable_for_terminal(text_of(obs, "content")) << "\n";
    else std::cout << text_of(obs, "content") << std::flush;
    return code;
}

int cmd_write(const Options &o) {
    if (o.args.size() != 1) throw UsageError("write needs PATH (content on stdin)");
    const std::string content = read_stdin();
    auto rt = open_runtime(o);
    // Uploaded as a file, so it arrives byte for byte (the `write` action re-joins lines: a newline
    // would be added or lost at the end).
    std::filesystem::path path(o.args[0]);
    if (path.is_relative()) path = std::filesystem::path(rt->workspace_dir()) / path;
    if (!path.has_filename()) throw UsageError("write needs a file path, got: " + o.args[0]);
    json r = rt->wire().upload_bytes(path.filename().string(), content, path.parent_path().string());
    rt->close();
    if (o.json) std::cout << actionhost::common::dump_json(r) << "\n";
    return kOk;
}

int cmd_exec(const Options &o) {
    auto rt = open_runtime(o);
    int failures = 0;
    std::string line;
    for (long n = 1; std::getline(std::cin, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json obs;
        try {
            json in = json::parse(line);
            if (!in.is_object()) throw std::runtime_error("not a JSON object");
            std::string session;
            json action = in;
            if (in.contains("action") && in["action"].is_object()) {
                action = in["action"];
                session = in.value("session", "");
            }
            action = with_timeout(action, o);
            obs = rt->execute(action, session);
        } catch (const WireError &e) {
            ++failures;
            obs = {{"observation", "error"}, {"content", e.what()}, {"extras", {{"error_id", ""}}}, {"message", e.what()}};
        } catch (const std::exception &e) {
            ++failures;
            std::string msg = "Line " + std::to_string(n) + " is not a valid action: " + e.what();
            obs = {{"observation", "error"}, {"content", msg}, {"extras", {{"error_id", ""}}}, {"message", msg}};
        }
        std::cout << actionhost::common::dump_json(obs) << "\n" << std::flush;
    }
    rt->close();
    return failures ? kActionFailed : kOk;
}

int cmd_shell(const Options &o) {
    auto rt = open_runtime(o);
    bool tty = isatty(0);
    bool running = false;  // the last command has not finished: the next line is its input
    std::string cwd;
    int last = kOk;
    std::string line;
    for (int i = 0; i < 100000000; ++i) {
        if (tty) std::cerr << (running ? "> " : ("ahctl:" + actionhost::common::printable_for_terminal(cwd) + "$ ")) << std::flush;
        if (!std::getline(std::cin, line)) break;
        if (!running && (line == "exit" || line == "logout")) break;
        json args = {{"command", line}, {"is_input", running}};
        json obs;
        try {
            obs = rt->execute(with_timeout({{"action", "run"}, {"args", args}}, o));
        } catch (const WireError &e) {
            std::cerr << "[ahctl] " << e.what() << "\n";
            last = kWire;
            continue;
        }
        print_content(obs, o.json);
        if (obs.value("observation", "") == "run") {
            json meta = obs["extras"].is_object() ? obs["extras"].value("metadata", json::object()) : json::object();
            // The cli runtime kills a command at its timeout: nothing is left to take input.
            running = exit_code_of(obs) < 0 && rt->runtime_name() != "cli";
            cwd = text_of(meta, "working_dir", cwd);
            std::string suffix = text_of(meta, "suffix");
            if (running && !suffix.empty()) std::cerr << actionhost::common::printable_for_terminal(suffix) << "\n";
        }
        last = exit_for_observation(obs);
    }
    rt->close();
    return last == kTimedOut ? kOk : last;
}

int cmd_upload(const Options &o) {
    if (o.args.size() != 2) throw UsageError("upload needs SRC and DEST");
    auto rt = open_runtime(o);
    json r = rt->wire().upload(o.args[0], o.args[1], false);
    rt->close();
    if (o.json) std::cout << actionhost::common::dump_json(r) << "\n";
    return kOk;
}

int cmd_download(const Options &o) {
    if (o.args.size() != 2) throw UsageError("download needs PATH and OUT");
    // OUT is opened before the runtime starts, never through a link and never waiting on a FIFO; the zip
    // goes into it as it arrives.
    const int out = ::open(o.args[1].c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    struct stat st{};
    if (out < 0 || ::fstat(out, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (out >= 0) ::close(out);
        std::cerr << "[ahctl] cannot write " << o.args[1] << ": " << (out < 0 ? std::strerror(errno) : "not a regular file") << "\n";
        return kActionFailed;
    }
    ::fcntl(out, F_SETFL, ::fcntl(out, F_GETFL) & ~O_NONBLOCK);
    try {
        auto rt = open_runtime(o);
        rt->wire().download_to(o.args[0], out, CopyOptions{}.max_bytes + (64ull << 20));
        rt->close();
    } catch (...) {
        ::close(out);
        throw;
    }
    ::close(out);
    return kOk;
}

int cmd_start(const Options &o) {
    if (!o.count && !o.jobs) {
        auto rt = open_runtime(o, true);
        std::cout << rt->session_id() << "\n";
        rt->close();  // keep_runtime_alive: the sandbox stays, recorded for ps/stop
        return kOk;
    }
    if (o.session) throw UsageError("start --count starts runtimes of fresh session ids: it takes no --session");
    Config config = load_config(o, current_environment());
    config.set("sandbox.keep_runtime_alive", true);
    const std::vector<PortRequest> ports = publish_requests(o);
    for (const auto &p : ports)
        if (p.machine_port != 0 && o.count.value_or(1) > 1)
            throw UsageError("start --count " + std::to_string(*o.count) + " --publish: one machine port cannot serve several sandboxes; give only the sandbox's port");
    RuntimeOptions base = base_runtime_options(o, config);
    add_registry_plugins(o, base);
    auto started = start_runtimes(std::move(base), o.count.value_or(1), o.jobs.value_or(0));
    int result = kOk;
    for (auto &s : started) {
        if (s.runtime) {
            try {
                publish_or_stop(*s.runtime, ports, true);
            } catch (const std::exception &e) {
                s.error = e.what();
                s.runtime.reset();
            }
        }
        if (!s.runtime) {
            std::cerr << "[ahctl] start failed: " << printable_for_terminal(s.error) << "\n";
            result = kRuntime;
            continue;
        }
        std::cout << s.runtime->session_id() << "\n";
        s.runtime->close();
    }
    return result;
}

// "alive" when the host answers /alive within a second; otherwise "unresponsive" when its sandbox
// still runs (stopped, frozen or hung) and "gone" when nothing tells that it does.
std::string probe_state(const json &record, std::optional<bool> exists) {
    bool alive = false;
    try {
        WireClient probe(record.value("url", ""), record.value("session_api_key", ""));
        probe.policy().alive_timeout_s = 1;
        alive = probe.alive();
    } catch (...) {
    }
    if (alive) return "alive";
    return exists.value_or(false) ? "unresponsive" : "gone";
}

int cmd_ps(const Options &o) {
    Config config = load_config(o, current_environment());
    StateStore store(state_dir_of(config));
    // The sweep run before every command was thorough for ps: records of ended runtimes are gone.
    auto records = store.list();
    std::vector<std::string> states(records.size());
    std::vector<json> lifetimes(records.size());
    RuntimeOptions base = base_runtime_options(o, config);
    // Probes only wait (up to a second for one that does not answer): many at once.
    for_each_concurrently(records.size(), o.jobs.value_or(64), [&](size_t i) {
        std::optional<bool> exists;
        std::unique_ptr<Runtime> rt;
        try {
            RuntimeOptions one = base;
            one.session_id = records[i].value("session_id", "");
            one.config.set("core.runtime", records[i].value("runtime", ""));
            rt = Runtime::create(std::move(one));
            exists = rt->kept_alive_exists();
        } catch (...) {
        }
        // The time left, from the process that keeps it (runtimes that keep no lifetime: none). One its
        // idle timeout paused is not probed: a request would resume it.
        if (rt && exists.value_or(true)) {
            try {
                lifetimes[i] = rt->lifetime();
            } catch (...) {
            }
        }
        const bool paused = lifetimes[i].is_object() && lifetimes[i].value("paused", false);
        states[i] = paused ? "paused" : probe_state(records[i], exists);
    });
    const long long now = static_cast<long long>(std::time(nullptr));
    if (o.json) {
        json out = json::array();
        for (size_t i = 0; i < records.size(); ++i) {
            json r = records[i];
            r["alive"] = states[i] == "alive";
            r["state"] = states[i];
            r["age_s"] = now - r.value("started_at", now);
            r["time_left_s"] = lifetimes[i].is_object() ? lifetimes[i].value("time_left_s", json()) : json();
            r.erase("session_api_key");
            out.push_back(r);
        }
        std::cout << actionhost::common::dump_json(out, 2) << "\n";
        return kOk;
    }
    std::printf("%-20s %-10s %-13s %-8s %-8s %s\n", "SESSION", "RUNTIME", "STATE", "AGE", "LEFT", "URL");
    for (size_t i = 0; i < records.size(); ++i) {
        const json &r = records[i];
        const long long age = now - r.value("started_at", now);
        std::string age_text = age < 120    ? std::to_string(age) + "s"
                               : age < 7200 ? std::to_string(age / 60) + "m"
                               : age < 172800 ? std::to_string(age / 3600) + "h"
                                              : std::to_string(age / 86400) + "d";
        std::printf("%-20s %-10s %-13s %-8s %-8s %s\n", printable_name(r.value("session_id", "")).c_str(),
                    printable_name(r.value("runtime", "")).c_str(), states[i].c_str(), age_text.c_str(),
                    time_left_text(lifetimes[i]).c_str(), printable_name(r.value("url", "")).c_str());
    }
    return kOk;
}

int cmd_stop(const Options &o) {
    Config config = load_config(o, current_environment());
    StateStore store(state_dir_of(config));
    std::vector<std::string> sids = o.args;
    bool all = o.all;
    for (auto it = sids.begin(); it != sids.end();)
        if (*it == "--all") {
            all = true;
            it = sids.erase(it);
        } else {
            ++it;
        }
    if (all)
        for (const auto &sid : kept_alive_sessions(config)) sids.push_back(sid);
    if (sids.empty() && !all) throw UsageError("stop needs session ids or --all");
    int result = kOk;
    std::vector<std::string> known;
    for (const auto &sid : sids) {
        if (store.get(sid)) {
            known.push_back(sid);
            continue;
        }
        std::cerr << "[ahctl] no kept-alive runtime with session id " << sid << "\n";
        result = kActionFailed;
    }
    config.set("sandbox.keep_runtime_alive", false);
    for (const auto &r : stop_sessions(base_runtime_options(o, config), known, o.jobs.value_or(0))) {
        if (r.error.empty()) {
            std::cout << r.session_id << "\n";
            continue;
        }
        std::cerr << "[ahctl] " << printable_name(r.session_id) << ": " << printable_for_terminal(r.error) << " (record removed)\n";
        store.remove(r.session_id);
        result = kRuntime;
    }
    return result;
}

// A runtime for the kept-alive session `sid`, not connected (`ahctl extend`); nullptr without a record.
std::unique_ptr<Runtime> session_runtime(const Options &o, const std::string &sid) {
    Config config = load_config(o, current_environment());
    auto record = StateStore(state_dir_of(config)).get(sid);
    if (!record) return nullptr;
    RuntimeOptions one = base_runtime_options(o, config);
    one.session_id = sid;
    one.config.set("core.runtime", record->value("runtime", ""));
    return Runtime::create(std::move(one));
}

int cmd_runtimes(const Options &o) {
    Config config = load_config(o, current_environment());
    std::vector<std::string> dirs;
    json cfg = config.get("core.runtime_dirs");
    if (cfg.is_array())
        for (const auto &d : cfg) dirs.push_back(d.get<std::string>());
    std::string install = o.install_dir.value_or(detect_install_dir());
    auto reg = RuntimeRegistry::scan(runtime_search_path(install, dirs));
    for (const auto &w : reg.warnings()) std::cerr << "[ahctl] " << w << "\n";
    for (const auto &m : reg.modules())
        for (const auto &r : m.runtimes)
            std::printf("%-24s %-12s %-8s %s\n", r.c_str(), m.name.c_str(), m.version.c_str(), m.library_path.c_str());
    return kOk;
}

// What ended sandboxes left (directories, cgroups, records) is removed before any command: a client
// killed mid-start or a reboot leaves nothing past the next ahctl call. Thorough (every record
// checked) where the command lists or acts on all of them.
void sweep_leftovers(const Options &o) {
    if (o.command == "runtimes" || o.command == "plugin") return;  // neither starts a sandbox
    Config config;
    try {
        config = load_config(o, current_environment());
    } catch (...) {
        return;  // the command itself reports what is wrong with the configuration
    }
    const bool thorough = o.command == "ps" || o.all || o.count;
    reclaim_leftovers(base_runtime_options(o, config), thorough);
}

}  // namespace

int run_command(const Options &o) {
    static const std::map<std::string, int (*)(const Options &)> commands = {
        {"run", cmd_run},       {"ipython", cmd_ipython}, {"edit", cmd_edit},   {"read", cmd_read},
        {"write", cmd_write},   {"exec", cmd_exec},       {"shell", [](const Options &o) { return wants_terminal() ? cmd_terminal(o, &open_runtime, false) : cmd_shell(o); }},
        {"attach", [](const Options &o) { return cmd_terminal(o, &open_runtime, true); }}, {"upload", cmd_upload},
        {"download", cmd_download}, {"start", cmd_start}, {"ps", cmd_ps},       {"stop", cmd_stop},
        {"runtimes", cmd_runtimes},
        {"top", cmd_top},
        {"logs", cmd_logs},
        {"extend", [](const Options &o) { return cmd_extend(o, [&o](const std::string &sid) { return session_runtime(o, sid); }); }},
        {"snapshot", [](const Options &o) { return cmd_snapshot(o, &open_runtime); }},
        {"port", [](const Options &o) { return cmd_port(o, &open_runtime); }},
        {"ui", [](const Options &o) { return cmd_ui(o, &open_runtime); }},
        {"net", [](const Options &o) { return cmd_net(o, &open_runtime); }},
        {"log", cmd_log},
        {"images", cmd_images},
        {"rmi", cmd_rmi},
        {"push", cmd_push},
        {"plugin", cmd_plugin},
        {"env", [](const Options &o) { return cmd_env(o, &open_runtime); }},
        {"cp", [](const Options &o) { return cmd_cp(o, &open_runtime); }},
        {"git", [](const Options &o) { return cmd_git(o, &open_runtime); }},
        {"microagents", [](const Options &o) { return cmd_microagents(o, &open_runtime); }}};
    auto it = commands.find(o.command);
    if (it == commands.end()) throw UsageError("no command given (see ahctl --help)");
    sweep_leftovers(o);
    return it->second(o);
}

}  // namespace ahctl
