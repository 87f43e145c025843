#include "cli/options.hpp"

#include <charconv>

namespace actionhost::host {
namespace {

bool parse_int(const std::string &s, int &out) {
    const char *end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && p == end;
}

bool is_flag(const std::string &s) { return s.size() > 1 && s[0] == '-' && s[1] == '-'; }

}  // namespace

std::string usage_text() {
    return "usage: actionhost PORT [--working-dir DIR] [--plugins NAME [NAME ...]] [--username U]\n"
           "                  [--user-id N] [--enable-browser | --no-enable-browser]\n"
           "                  [--browsergym-eval-env ENV] [--host ADDR] [--port-file FILE]\n"
           "                  [--plugin-dir DIR]... [--set KEY=VALUE]...\n"
           "       actionhost --list-plugins [--plugin-dir DIR]...\n"
           "       actionhost --help | --version\n"
           "\n"
           "Serves the OpenHands action-execution protocol on PORT (0 picks a free port).\n"
           "  --working-dir DIR        initial directory of shells and kernels; the editor root\n"
           "  --plugins NAME...        plugins to load at start (bash is always loaded)\n"
           "  --username U             user actions run as (created when missing and running as root)\n"
           "  --user-id N              uid for that user and owner of new files (default 1000)\n"
           "  --no-enable-browser      refuse browse actions\n"
           "  --browsergym-eval-env E  BrowserGym evaluation environment\n"
           "  --host ADDR              address to listen on (default 0.0.0.0)\n"
           "  --port-file FILE         write the bound port to FILE once serving\n"
           "  --plugin-dir DIR         also look for plugin manifests in DIR\n"
           "  --set KEY=VALUE          configuration value for plugins (overrides the environment)\n"
           "  --list-plugins           print the plugin registry (ALL_PLUGINS) as JSON and exit\n";
}

ParseResult parse_options(const std::vector<std::string> &args) {
    Options o;
    ParseResult r;
    auto fail = [&](std::string msg) {
        r.error = std::move(msg);
        return r;
    };
    bool have_port = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        auto value = [&](std::string &out) -> bool {
            if (i + 1 >= args.size() || is_flag(args[i + 1])) return false;
            out = args[++i];
            return true;
        };
        std::string v;
        if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--version") {
            o.version = true;
        } else if (a == "--list-plugins") {
            o.list_plugins = true;
        } else if (a == "--working-dir") {
            if (!value(o.working_dir)) return fail("--working-dir needs a directory");
        } else if (a == "--plugins") {
            size_t before = o.plugins.size();
            while (i + 1 < args.size() && !is_flag(args[i + 1])) o.plugins.push_back(args[++i]);
            if (o.plugins.size() == before) return fail("--plugins needs at least one name");
        } else if (a == "--username") {
            if (!value(o.username)) return fail("--username needs a name");
        } else if (a == "--user-id") {
            if (!value(v) || !parse_int(v, o.user_id) || o.user_id < 0) return fail("--user-id needs a non-negative integer");
        } else if (a == "--enable-browser") {
            o.enable_browser = true;
        } else if (a == "--no-enable-browser") {
            o.enable_browser = false;
        } else if (a == "--browsergym-eval-env") {
            if (!value(o.browsergym_eval_env)) return fail("--browsergym-eval-env needs a value");
        } else if (a == "--host") {
            if (!value(o.bind_host)) return fail("--host needs an address");
        } else if (a == "--port-file") {
            if (!value(o.port_file)) return fail("--port-file needs a path");
        } else if (a == "--plugin-dir") {
            if (!value(v)) return fail("--plugin-dir needs a directory");
            o.plugin_dirs.push_back(v);
        } else if (a == "--set") {
            if (!value(v) || v.find('=') == std::string::npos || v.front() == '=') return fail("--set needs KEY=VALUE");
            o.settings[v.substr(0, v.find('='))] = v.substr(v.find('=') + 1);
        } else if (is_flag(a) || (a.size() > 1 && a[0] == '-' && !have_port)) {
            return fail("unknown option " + a);
        } else if (!have_port) {
            if (!parse_int(a, o.port) || o.port < 0 || o.port > 65535) return fail("PORT must be an integer from 0 to 65535, got '" + a + "'");
            have_port = true;
        } else {
            return fail("unexpected argument '" + a + "'");
        }
    }
    if (!o.help && !o.version && !o.list_plugins && !have_port) return fail("PORT is required");
    if (!o.browsergym_eval_env.empty() && !o.enable_browser)
        return fail("--browsergym-eval-env needs the browser; it cannot be combined with --no-enable-browser");
    r.options = std::move(o);
    return r;
}

}  // namespace actionhost::host
