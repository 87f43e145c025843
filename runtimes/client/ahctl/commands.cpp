#include "commands.hpp"

#include <unistd.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/registry.hpp>
#include <actionhost/client/runtime.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/common/text.hpp>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "progress.hpp"
#include "workspace_commands.hpp"

namespace ahctl {

using namespace actionhost::client;
using nlohmann::json;

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

int exit_code_of(const json &obs) {
    if (!obs.contains("extras") || !obs["extras"].is_object()) return -1;
    const json &extras = obs["extras"];
    if (!extras.contains("metadata") || !extras["metadata"].is_object()) return -1;
    auto it = extras["metadata"].find("exit_code");
    return it != extras["metadata"].end() && it->is_number_integer() ? it->get<int>() : -1;
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

Config load_config(const Options &o, const Environment &env) {
    Config config = Config::load(o.config_path, env);
    if (!o.quiet && !config.ignored_keys().empty()) {
        std::string keys;
        for (const auto &k : config.ignored_keys()) keys += (keys.empty() ? "" : ", ") + k;
        std::cerr << "ahctl: ignoring OpenHands settings actionhost does not use: " << keys << "\n";
    }
    if (o.runtime) config.set("core.runtime", *o.runtime);
    if (o.workspace) {
        config.set("core.workspace_base", *o.workspace);
        // ./config.toml read implicitly must not lie in the workspace this start gives the agent.
        if (!o.config_path) {
            if (auto why = Config::implicit_config_refusal("config.toml", *o.workspace)) throw ConfigError(*why);
        }
    }
    if (o.state_dir) config.set("core.state_dir", *o.state_dir);
    if (o.keep) config.set("sandbox.keep_runtime_alive", true);
    if (o.repo) config.set("sandbox.selected_repo", *o.repo);
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

std::string state_dir_of(const Config &config) { return StateStore::default_dir(config.get_text("core.state_dir")); }

// Starts (or reattaches to) the runtime the options select, drawing the progress line.
std::unique_ptr<Runtime> open_runtime(const Options &o, bool keep = false) {
    Environment env = current_environment();
    Config config = load_config(o, env);
    if (keep) config.set("sandbox.keep_runtime_alive", true);
    if (o.session) {
        // A kept-alive session: same runtime, and it stays alive after this command.
        if (auto record = StateStore(state_dir_of(config)).get(*o.session)) {
            if (!o.runtime) config.set("core.runtime", record->value("runtime", config.runtime()));
            config.set("sandbox.keep_runtime_alive", true);
        }
    }
    RuntimeOptions ro;
    ro.session_id = o.session.value_or("");
    ro.install_dir = o.install_dir.value_or("");
    ro.plugins = o.plugins;
    for (const auto &[k, v] : o.env) ro.sandbox_env[k] = v;
    std::string name = select_runtime_name(config, env);
    auto progress = std::make_shared<Progress>(name, !o.quiet);
    ro.on_status = [progress](const std::string &s, const std::string &d) { progress->on_status(s, d); };
    ro.on_log = [quiet = o.quiet](int level, const std::string &msg) {
        if (level >= 2 && !quiet) std::cerr << "[ahctl] " << msg << "\n";
    };
    ro.config = std::move(config);
    std::unique_ptr<Runtime> rt;
    try {
        rt = Runtime::create(std::move(ro));
        rt->connect();
    } catch (...) {
        progress->finish();
        throw;
    }
    progress->finish();
    return rt;
}

void print_content(const json &obs, bool as_json) {
    if (as_json) {
        std::cout << obs.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
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

// Splits a command's own options (--name value / --flag) from its positional words.
struct CommandArgs {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> named;
};

CommandArgs split_args(const std::vector<std::string> &args, const std::map<std::string, int> &arity) {
    CommandArgs out;
    for (size_t i = 0; i < args.size(); ++i) {
        auto it = arity.find(args[i]);
        if (it == arity.end()) {
            out.positional.push_back(args[i]);
            continue;
        }
        std::vector<std::string> values;
        for (int k = 0; k < it->second; ++k) {
            if (i + 1 >= args.size()) throw UsageError("option " + args[i] + " needs " + std::to_string(it->second) + " value(s)");
            values.push_back(args[++i]);
        }
        out.named[it->first] = values;
    }
    return out;
}

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

int cmd_run(const Options &o) {
    auto a = split_args(o.args, {{"--is-input", 0}, {"--blocking", 0}, {"--cwd", 1}});
    if (a.positional.empty()) throw UsageError("run needs a command: ahctl run -- 'echo hi'");
    json args = {{"command", join(a.positional)}, {"is_input", a.named.count("--is-input") > 0},
                 {"blocking", a.named.count("--blocking") > 0}};
    if (a.named.count("--cwd")) args["cwd"] = a.named["--cwd"][0];
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

int cmd_ipython(const Options &o) {
    if (o.args.empty()) throw UsageError("ipython needs code: ahctl --plugins jupyter ipython 'print(1)'");
    std::string code = o.args.size() == 1 && o.args[0] == "-" ? read_stdin() : join(o.args);
    auto rt = open_runtime(o);
    json obs = rt->execute(with_timeout({{"action", "run_ipython"}, {"args", {{"code", code}, {"include_extra", false}}}}, o));
    rt->close();
    print_content(obs, o.json);
    return exit_for_observation(obs);
}

int cmd_edit(const Options &o) {
    auto a = split_args(o.args, {{"--file-text", 1}, {"--old-str", 1}, {"--new-str", 1}, {"--insert-line", 1}, {"--view-range", 2}});
    if (a.positional.size() != 2) throw UsageError("edit needs COMMAND and PATH: ahctl edit view /workspace/f.txt");
    const std::string &command = a.positional[0], &path = a.positional[1];
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
    print_content(obs, o.json);
    return exit_for_observation(obs);
}

int cmd_read(const Options &o) {
    auto a = split_args(o.args, {{"--start", 1}, {"--end", 1}});
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
    if (o.json) print_content(obs, true);
    else std::cout << obs.value("content", "") << std::flush;
    return exit_for_observation(obs);
}

int cmd_write(const Options &o) {
    if (o.args.size() != 1) throw UsageError("write needs PATH (content on stdin)");
    std::string content = read_stdin();
    // write splits on \n and re-adds one per piece: drop the final newline so the file round-trips.
    if (!content.empty() && content.back() == '\n') content.pop_back();
    auto rt = open_runtime(o);
    json obs = rt->execute(with_timeout({{"action", "write"}, {"args", {{"path", o.args[0]}, {"content", content}}}}, o));
    rt->close();
    if (o.json || obs.value("observation", "") == "error") print_content(obs, o.json);
    return exit_for_observation(obs);
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
        std::cout << obs.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
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
    if (o.json) std::cout << r.dump() << "\n";
    return kOk;
}

int cmd_download(const Options &o) {
    if (o.args.size() != 2) throw UsageError("download needs PATH and OUT");
    auto rt = open_runtime(o);
    std::string zip = rt->wire().download(o.args[0]);
    rt->close();
    std::ofstream out(o.args[1], std::ios::binary | std::ios::trunc);
    out.write(zip.data(), static_cast<std::streamsize>(zip.size()));
    if (!out) {
        std::cerr << "[ahctl] cannot write " << o.args[1] << "\n";
        return kActionFailed;
    }
    return kOk;
}

int cmd_start(const Options &o) {
    auto rt = open_runtime(o, true);
    std::cout << rt->session_id() << "\n";
    rt->close();  // keep_runtime_alive: the sandbox stays, recorded for ps/stop
    return kOk;
}

int cmd_ps(const Options &o) {
    Config config = load_config(o, current_environment());
    StateStore store(state_dir_of(config));
    auto records = store.list();
    if (o.json) {
        json out = json::array();
        for (auto &r : records) {
            WireClient probe(r.value("url", ""), r.value("session_api_key", ""));
            probe.policy().alive_timeout_s = 1;
            r["alive"] = probe.alive();
            r.erase("session_api_key");
            out.push_back(r);
        }
        std::cout << out.dump(2) << "\n";
        return kOk;
    }
    std::printf("%-20s %-10s %-8s %-10s %s\n", "SESSION", "RUNTIME", "STATE", "AGE", "URL");
    for (const auto &r : records) {
        bool alive = false;
        try {
            WireClient probe(r.value("url", ""), r.value("session_api_key", ""));
            probe.policy().alive_timeout_s = 1;
            alive = probe.alive();
        } catch (...) {
        }
        long age = static_cast<long>(std::time(nullptr)) - r.value("started_at", 0L);
        std::string age_text = age < 120 ? std::to_string(age) + "s" : age < 7200 ? std::to_string(age / 60) + "m" : std::to_string(age / 3600) + "h";
        std::printf("%-20s %-10s %-8s %-10s %s\n", r.value("session_id", "").c_str(), r.value("runtime", "").c_str(),
                    alive ? "alive" : "gone", age_text.c_str(), r.value("url", "").c_str());
    }
    return kOk;
}

int cmd_stop(const Options &o) {
    Config config = load_config(o, current_environment());
    StateStore store(state_dir_of(config));
    std::vector<std::string> sids = o.args;
    bool all = false;
    for (auto it = sids.begin(); it != sids.end();)
        if (*it == "--all") {
            all = true;
            it = sids.erase(it);
        } else {
            ++it;
        }
    if (all)
        for (const auto &r : store.list()) sids.push_back(r.value("session_id", ""));
    if (sids.empty() && !all) throw UsageError("stop needs session ids or --all");
    int result = kOk;
    for (const auto &sid : sids) {
        auto record = store.get(sid);
        if (!record) {
            std::cerr << "[ahctl] no kept-alive runtime with session id " << sid << "\n";
            result = kActionFailed;
            continue;
        }
        Options one = o;
        one.session = sid;
        one.runtime = record->value("runtime", "");
        one.keep = false;
        one.quiet = true;
        try {
            Environment env = current_environment();
            Config c = load_config(one, env);
            c.set("sandbox.keep_runtime_alive", false);
            RuntimeOptions ro;
            ro.config = c;
            ro.session_id = sid;
            ro.install_dir = o.install_dir.value_or("");
            auto rt = Runtime::create(std::move(ro));
            rt->connect();  // reattaches
            rt->close();    // stops
            std::cout << sid << "\n";
        } catch (const std::exception &e) {
            std::cerr << "[ahctl] " << sid << ": " << e.what() << " (record removed)\n";
            result = kRuntime;
        }
        store.remove(sid);
    }
    return result;
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

}  // namespace

int run_command(const Options &o) {
    static const std::map<std::string, int (*)(const Options &)> commands = {
        {"run", cmd_run},       {"ipython", cmd_ipython}, {"edit", cmd_edit},   {"read", cmd_read},
        {"write", cmd_write},   {"exec", cmd_exec},       {"shell", cmd_shell}, {"upload", cmd_upload},
        {"download", cmd_download}, {"start", cmd_start}, {"ps", cmd_ps},       {"stop", cmd_stop},
        {"runtimes", cmd_runtimes},
        {"env", [](const Options &o) { return cmd_env(o, &open_runtime); }},
        {"cp", [](const Options &o) { return cmd_cp(o, &open_runtime); }},
        {"git", [](const Options &o) { return cmd_git(o, &open_runtime); }},
        {"microagents", [](const Options &o) { return cmd_microagents(o, &open_runtime); }}};
    auto it = commands.find(o.command);
    if (it == commands.end()) throw UsageError("no command given (see ahctl --help)");
    return it->second(o);
}

}  // namespace ahctl
