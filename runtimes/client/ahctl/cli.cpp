#include "cli.hpp"

#include <actionhost/common/edit_distance.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>

namespace ahctl {

namespace {

// A command's own option: its names as CLI11 takes them ("--cwd"), how many values it takes.
struct CommandOption {
    std::string names;  // e.g. "--view-range"
    int values;         // 0 for a flag
};

struct Command {
    std::string name;
    std::vector<CommandOption> options;
};

const std::vector<Command> &command_table() {
    static const std::vector<Command> commands = {
        // -t is the global --timeout: the terminal is --tty only.
        {"run", {{"--is-input", 0}, {"--blocking", 0}, {"--cwd", 1}, {"--agent", 0}, {"--tty", 0}, {"-i,--interactive", 0}}},
        {"ipython", {}},
        {"edit", {{"--file-text", 1}, {"--old-str", 1}, {"--new-str", 1}, {"--insert-line", 1}, {"--view-range", 2}}},
        {"read", {{"--start", 1}, {"--end", 1}}},
        {"write", {}},
        {"exec", {}},
        {"shell", {}},
        {"attach", {}},
        {"upload", {}},
        {"download", {}},
        {"start", {}},
        {"ps", {}},
        {"top", {{"--interval", 1}, {"--once", 0}}},
        {"logs", {{"-f,--follow", 0}}},
        {"stop", {}},
        {"extend", {}},
        {"runtimes", {}},
        {"snapshot", {}},
        {"images", {}},
        {"rmi", {}},
        {"push", {}},
        {"plugin", {{"--sign", 1}, {"--require-signature", 1}, {"--dir", 1}, {"--as", 1}}},
        {"port", {{"--address", 1}, {"--rm", 0}}},
        {"ui", {{"--open", 0}}},
        {"net", {}},
        {"log", {{"-f,--follow", 0}, {"--verify", 0}}},
        {"help", {}},
        {"env", {}},
        {"git", {{"--cwd", 1}}},
        {"microagents", {{"--root", 1}}},
        {"cp", {{"--max-size", 1}}},
    };
    return commands;
}

const std::vector<std::string> kGlobalOptions = {"--config", "--runtime", "--workspace", "--session", "--state-dir",
                                                 "--install-dir", "--keep", "--quiet", "--json", "--all", "--count",
                                                 "--jobs", "--plugins", "--plugin-dir", "--plugin", "--plugin-key", "--set", "--env", "--repo", "--image", "--publish", "--timeout",
                                                 "--help", "--version"};

size_t positive_count(const std::string &name, const std::string &v) {
    try {
        size_t used = 0;
        const long long n = std::stoll(v, &used);
        if (used == v.size() && n > 0 && n <= 1'000'000) return static_cast<size_t>(n);
    } catch (...) {
    }
    throw UsageError(name + " needs a positive whole number, got: " + v);
}


// "unknown option --timout for run (did you mean --timeout?)"
[[noreturn]] void unknown_word(const std::string &word, const std::string &command) {
    const bool option = word.size() > 1 && word[0] == '-';
    std::vector<std::string> known;
    if (option) {
        known = kGlobalOptions;
        for (const auto &c : command_table())
            if (c.name == command)
                for (const auto &opt : c.options)
                    for (size_t at = 0; at <= opt.names.size();) {  // "-i,--interactive": each name
                        const size_t comma = std::min(opt.names.find(',', at), opt.names.size());
                        known.push_back(opt.names.substr(at, comma - at));
                        at = comma + 1;
                    }
    } else {
        for (const auto &c : command_table()) known.push_back(c.name);
    }
    const std::string name = word.substr(0, word.find('='));
    const std::string guess = closest_match(name, known);
    std::string msg = option ? "unknown option " + name + (command.empty() ? "" : " for " + command)
                             : "unknown command '" + word + "'";
    if (!guess.empty()) msg += " (did you mean " + guess + "?)";
    msg += option && !command.empty() ? "; see ahctl " + command + " --help" : "; see ahctl --help";
    if (option && command == "run") msg += " (words after `--` are the command's own)";
    throw UsageError(msg);
}

}  // namespace

std::string closest_match(const std::string &word, const std::vector<std::string> &known) {
    std::string best;
    size_t best_distance = 3;  // at most 2 edits
    for (const auto &k : known) {
        if (word.size() >= 3 && k.rfind(word, 0) == 0) return k;  // an unambiguous start of the name
        const size_t d = actionhost::common::edit_distance(word, k);
        if (d < best_distance) {
            best_distance = d;
            best = k;
        }
    }
    return best;
}

Options parse_command_line(int argc, char **argv) {
    Options o;
    CLI::App app("ahctl");
    app.set_help_flag();  // help texts are ours (help_text), per command
    app.allow_extras();   // unknown words are reported below, with a suggestion
    app.require_subcommand(0, 1);  // one command; a command's words are never taken for another command
    // An option given twice: the last one counts (scripts append overrides: `... -r sandbox ... -r local`).
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    std::string config, runtime, workspace, session, state_dir, install_dir, repo, image, timeout, count, jobs;
    std::vector<std::string> plugins, plugin_dirs, sets, env;
    app.add_flag("-h,--help", o.help);
    app.add_flag("--version", o.version);
    auto *config_opt = app.add_option("-c,--config", config);
    auto *runtime_opt = app.add_option("-r,--runtime", runtime);
    auto *workspace_opt = app.add_option("-w,--workspace", workspace);
    auto *session_opt = app.add_option("-s,--session", session);
    auto *state_opt = app.add_option("--state-dir", state_dir);
    auto *install_opt = app.add_option("--install-dir", install_dir);
    auto *repo_opt = app.add_option("--repo", repo);
    auto *image_opt = app.add_option("--image", image);
    auto *timeout_opt = app.add_option("-t,--timeout", timeout);
    auto *count_opt = app.add_option("--count", count);
    auto *jobs_opt = app.add_option("-j,--jobs", jobs);
    app.add_option("-p,--plugins", plugins)->delimiter(',')->allow_extra_args(false);
    app.add_option("--plugin-dir", plugin_dirs)->allow_extra_args(false);
    app.add_option("--plugin", o.plugin_refs)->allow_extra_args(false);
    app.add_option("--plugin-key", o.plugin_keys)->delimiter(',')->allow_extra_args(false);
    app.add_option("--set", sets)->allow_extra_args(false);
    app.add_option("-e,--env", env)->allow_extra_args(false);
    app.add_option("--publish", o.publish)->allow_extra_args(false);
    app.add_flag("--keep", o.keep);
    app.add_flag("-q,--quiet", o.quiet);
    app.add_flag("--json", o.json);
    app.add_flag("--all", o.all);

    std::map<std::string, std::vector<std::string>> values;  // a command option → its values
    std::map<std::string, CLI::Option *> given;
    for (const auto &c : command_table()) {
        CLI::App *sub = app.add_subcommand(c.name);
        sub->fallthrough();   // global options after the command name
        sub->allow_extras();  // reported below with a suggestion
        sub->set_help_flag();
        sub->add_option("words", o.args);
        for (const auto &opt : c.options) {
            auto &slot = values[c.name + " " + opt.names];
            CLI::Option *added = opt.values == 0 ? sub->add_flag(opt.names) : sub->add_option(opt.names, slot)->expected(opt.values)->allow_extra_args(opt.values > 1);
            given[c.name + " " + opt.names] = added;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        std::string m = e.what();
        if (auto nl = m.find('\n'); nl != std::string::npos) m.resize(nl);
        throw UsageError(m);
    }
    for (const CLI::App *sub : app.get_subcommands()) o.command = sub->get_name();
    for (const auto &word : app.remaining(true))
        if (word != "--") unknown_word(word, o.command);  // CLI11 keeps the `--` it consumed there
    for (const auto &[key, opt] : given) {
        if (opt->count() == 0 || key.rfind(o.command + " ", 0) != 0) continue;
        o.named[key.substr(o.command.size() + 1)] = values[key];
    }

    if (config_opt->count()) o.config_path = config;
    if (runtime_opt->count()) o.runtime = runtime;
    if (workspace_opt->count()) o.workspace = workspace;
    if (session_opt->count()) o.session = session;
    if (state_opt->count()) o.state_dir = state_dir;
    if (install_opt->count()) o.install_dir = install_dir;
    if (repo_opt->count()) o.repo = repo;
    if (image_opt->count()) o.image = image;
    if (count_opt->count()) o.count = positive_count("--count", count);
    if (jobs_opt->count()) o.jobs = positive_count("--jobs", jobs);
    for (const auto &p : plugins)
        if (!p.empty()) o.plugins.push_back(p);
    o.plugin_dirs = plugin_dirs;
    for (const auto &kv : sets) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || kv.find('.') > eq) throw UsageError("--set needs section.key=value, got: " + kv);
        o.sets.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    for (const auto &kv : env) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("--env needs KEY=VALUE, got: " + kv);
        o.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    if (timeout_opt->count()) {
        try {
            size_t used = 0;
            o.timeout = std::stod(timeout, &used);
            if (used != timeout.size() || !(*o.timeout > 0)) throw 0;
        } catch (...) {
            throw UsageError("--timeout needs a positive number of seconds, got: " + timeout);
        }
    }
    if (o.command == "help") {
        o.help = true;
        o.command = o.args.empty() ? "" : o.args[0];
        if (!o.command.empty() && !help_text(o.command)) unknown_word(o.command, "");
        o.args.clear();
    }
    return o;
}

}  // namespace ahctl
