#include "cli/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace actionhost::host {
namespace {

constexpr const char *kSynopsis =
    "usage: actionhost PORT [--working-dir DIR] [--plugins NAME [NAME ...]] [--username U] [--user-id N]\n"
    "                  [--host ADDR] [--port-file FILE] [--plugin-dir DIR]... [--set KEY=VALUE]...\n"
    "                  [plugin options]\n"
    "       actionhost --list-plugins [--plugin-dir DIR]...\n"
    "       actionhost --help | --version\n"
    "\n"
    "Serves the OpenHands action-execution protocol on PORT (0 picks a free port).\n"
    "  --working-dir DIR        initial directory of shells and kernels; the editor root\n"
    "  --plugins NAME...        plugins to load at start (those marked \"load\": \"always\" load anyway)\n"
    "  --username U             user actions run as (created when missing and running as root)\n"
    "  --user-id N              uid for that user and owner of new files (default 1000)\n"
    "  --host ADDR              address to listen on (default 0.0.0.0)\n"
    "  --port-file FILE         write the bound port to FILE once serving\n"
    "  --plugin-dir DIR         also look for plugin manifests in DIR\n"
    "  --set KEY=VALUE          configuration value for plugins (overrides the environment)\n"
    "  --list-plugins           print the plugin registry (ALL_PLUGINS) as JSON and exit\n";

// CLI11's first error line, with our option names (it says "--user-id: Value -3 not in range ...").
std::string message_of(const CLI::ParseError &e) {
    std::string m = e.what();
    if (auto nl = m.find('\n'); nl != std::string::npos) m.resize(nl);
    return m;
}

}  // namespace

std::string usage_text(const std::vector<const modules::Manifest *> &modules) {
    std::string out = kSynopsis;
    for (const modules::Manifest *m : modules) {
        for (const auto &o : m->options) {
            std::string flag = o.flag + (o.value_of.empty() ? "" : " VALUE");
            if (flag.size() < 23) flag.resize(23, ' ');
            out += "  " + flag + "  " + o.description + " (" + m->name + ")\n";
        }
    }
    return out;
}

common::Result<Options> parse_options(const std::vector<std::string> &args) {
    Options o;
    CLI::App app("actionhost");
    app.set_help_flag();  // --help is ours, answered with usage_text
    app.allow_extras();   // plugin options, resolved once the manifests are read
    app.add_flag("-h,--help", o.help);
    app.add_flag("--version", o.version);
    app.add_flag("--list-plugins", o.list_plugins);
    std::string port_text;
    auto *port = app.add_option("PORT", port_text, "port");
    app.add_option("--working-dir", o.working_dir);
    app.add_option("--plugins", o.plugins)->expected(1, -1)->allow_extra_args();
    app.add_option("--username", o.username);
    app.add_option("--user-id", o.user_id)->check(CLI::NonNegativeNumber);
    app.add_option("--host", o.bind_host);
    app.add_option("--port-file", o.port_file);
    app.add_option("--plugin-dir", o.plugin_dirs)->allow_extra_args(false);
    std::vector<std::string> sets;
    app.add_option("--set", sets, "KEY=VALUE")->allow_extra_args(false)->check([](const std::string &v) {
        return v.find('=') == std::string::npos || v.front() == '=' ? std::string("--set needs KEY=VALUE") : std::string();
    });
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError &e) {
        return common::fail(message_of(e));
    }
    for (const auto &s : sets) o.settings[s.substr(0, s.find('='))] = s.substr(s.find('=') + 1);
    if (port->count() > 0) {
        size_t used = 0;
        try {
            o.port = std::stoi(port_text, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (used != port_text.size() || o.port < 0 || o.port > 65535)
            return common::fail("PORT must be an integer from 0 to 65535, got '" + port_text + "'");
    }
    o.plugin_flags = app.remaining();
    // A token that is no flag where a PORT was expected: say what PORT must be.
    if (!o.plugin_flags.empty() && port->count() == 0 && o.plugin_flags.front().rfind("-", 0) != 0)
        return common::fail("PORT must be an integer from 0 to 65535, got '" + o.plugin_flags.front() + "'");
    if (!o.help && !o.version && !o.list_plugins && port->count() == 0) return common::fail("PORT is required");
    return o;
}

common::Status apply_declared_options(const std::vector<std::string> &flags, const std::vector<const modules::Manifest *> &modules,
                                   std::map<std::string, std::string> &declared, std::vector<std::string> &ignored) {
    CLI::App app("actionhost plugin options");
    app.set_help_flag();
    app.allow_extras();  // what no manifest declares is reported below, in our words
    std::map<std::string, std::string> values;  // flag → the value given
    std::map<std::string, const modules::OptionSpec *> specs;
    for (const modules::Manifest *m : modules) {
        for (const auto &o : m->options) {
            if (specs.count(o.flag)) continue;  // the first module on the search path declares it
            specs[o.flag] = &o;
            if (o.value_of.empty()) app.add_flag_callback(o.flag, [&declared, &o] {
                for (const auto &[k, v] : o.sets) declared[k] = v;
            });
            else app.add_option(o.flag, values[o.flag])->allow_extra_args(false);
        }
    }
    std::vector<std::string> reversed(flags.rbegin(), flags.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError &e) {
        return common::fail(message_of(e));
    }
    for (const auto &word : app.remaining()) {
        if (word.rfind("-", 0) == 0 || ignored.empty()) ignored.push_back(word);
        else ignored.back() += " " + word;  // the value of the undeclared flag before it
    }
    for (const auto &[flag, spec] : specs)
        if (!spec->value_of.empty() && app.count(flag) > 0) declared[spec->value_of] = values[flag];
    return common::ok();
}

}  // namespace actionhost::host
