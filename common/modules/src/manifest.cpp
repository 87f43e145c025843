#include "actionhost/modules/manifest.hpp"

#include <actionhost/common/json_write.hpp>

#include "actionhost/modules/version_range.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace actionhost::modules {
namespace {

bool parse_version(const std::string &text, ah_version_t &out) {
    uint32_t parts[3] = {0, 0, 0};
    const char *p = text.data();
    const char *end = p + text.size();
    for (int i = 0; i < 3; ++i) {
        auto [next, ec] = std::from_chars(p, end, parts[i]);
        if (ec != std::errc() || next == p) return false;
        p = next;
        if (i < 2) {
            if (p == end || *p != '.') return false;
            ++p;
        }
    }
    if (p != end) return false;
    out = {parts[0], parts[1], parts[2]};
    return true;
}

common::Status string_list(const nlohmann::ordered_json &obj, const char *key, std::vector<std::string> &out, const std::string &where) {
    if (!obj.contains(key)) return common::ok();
    const auto &v = obj.at(key);
    const auto refuse = [&] { return common::fail(where + "." + key + " must be an array of strings"); };
    if (!v.is_array()) return refuse();
    for (const auto &item : v) {
        if (!item.is_string()) return refuse();
        out.push_back(item.get<std::string>());
    }
    return common::ok();
}

// Checks by character class, not std::regex: compiling one costs ~1 M instructions, and every host
// start (so every sandbox start) reads every manifest.
bool all_of(std::string_view s, bool (*ok)(char)) { return std::all_of(s.begin(), s.end(), ok); }
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// An HTTP route: an absolute path, no query or fragment, no whitespace or control characters.
bool valid_route(const std::string &p) {
    return !p.empty() && p.size() <= 256 && p[0] == '/' && all_of(p, [](char c) { return c >= 0x21 && c <= 0x7e; }) &&
           p.find_first_of("?#") == std::string::npos;
}

// "--lower-case-flag": what a manifest's option may be called.
bool valid_flag(const std::string &f) {
    return f.size() > 2 && f.size() <= 66 && f.rfind("--", 0) == 0 && f[2] != '-' &&
           all_of(std::string_view(f).substr(2), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// A dotted Python module name: identifiers joined by '.'.
bool valid_module(const std::string &m) {
    size_t start = 0;
    for (;;) {
        const size_t dot = m.find('.', start);
        const std::string_view part = std::string_view(m).substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (part.empty() || (part[0] >= '0' && part[0] <= '9') || !all_of(part, [](char c) { return alnum(c) || c == '_'; }))
            return false;
        if (dot == std::string::npos) return true;
        start = dot + 1;
    }
}

// [A-Za-z0-9_][A-Za-z0-9_.-]{0,63}
bool valid_name(const std::string &n) {
    return !n.empty() && n.size() <= 64 && (alnum(n[0]) || n[0] == '_') &&
           all_of(n, [](char c) { return alnum(c) || c == '_' || c == '.' || c == '-'; });
}

// "requires.plugins": a list of names (any version), or an object of name → version range.
common::Status required_plugins(const nlohmann::ordered_json &requires_, Manifest &m) {
    if (!requires_.contains("plugins")) return common::ok();
    const auto &v = requires_.at("plugins");
    if (v.is_array()) {
        if (auto r = string_list(requires_, "plugins", m.requires_plugins, "requires"); !r) return r.as_failure();
        for (const auto &name : m.requires_plugins) m.plugin_ranges[name] = "";
        return common::ok();
    }
    if (!v.is_object())
        return common::fail("requires.plugins must be a list of plugin names or an object of name to version range "
                            "({\"jupyter\": \">=1.2 <2\"})");
    for (const auto &[name, range] : v.items()) {
        if (!valid_name(name)) return common::fail("requires.plugins: \"" + name + "\" is not a plugin name");
        if (!range.is_string()) return common::fail("requires.plugins." + name + " must be a version range string, e.g. \">=1.2 <2\"");
        if (auto r = VersionRange::parse(range.get<std::string>()); !r)
            return common::fail("requires.plugins." + name + ": " + r.error().message);
        m.requires_plugins.push_back(name);
        m.plugin_ranges[name] = range.get<std::string>();
    }
    return common::ok();
}

// "provides.images": [{"dir": "relative/dir", "title": "..."}] (see ImageFeed).
common::Status parse_image_feeds(const nlohmann::ordered_json &v, Manifest &m) {
    const auto refuse = [] {
        return common::fail("\"provides.images\" must be a list of {\"dir\": a relative directory without \"..\", \"title\": text}");
    };
    if (!v.is_array()) return refuse();
    for (const auto &feed : v) {
        if (!feed.is_object() || feed.size() != 2 || !feed.contains("dir") || !feed.contains("title") || !feed["dir"].is_string() ||
            !feed["title"].is_string())
            return refuse();
        const std::string dir = feed["dir"], title = feed["title"];
        if (dir.empty() || dir[0] == '/' || dir == ".." || dir.rfind("../", 0) == 0 || dir.find("/../") != std::string::npos ||
            (dir.size() >= 3 && dir.compare(dir.size() - 3, 3, "/..") == 0) || title.empty() || title.size() > 64)
            return refuse();
        m.image_feeds.push_back({dir, title});
    }
    return common::ok();
}

// "provides": a plugin lists "actions" and/or "http_routes" (at least one name in all) or says "policy": true
// (a policy module, ext/policy.h), and may list "images", a runtime "runtimes"; any other key is refused, so a typo cannot silently provide nothing. Actions are read
// in the file's order (the order of the checks).
common::Status parse_provides(const nlohmann::ordered_json &provides, Manifest &m) {
    const bool plugin = m.kind == ModuleKind::Plugin;
    for (const auto &[key, _] : provides.items()) {
        const bool known = plugin ? (key == "actions" || key == "http_routes" || key == "images" || key == "policy") : key == "runtimes";
        if (!known)
            return common::fail("\"provides." + key + "\" is not a field of a " + to_string(m.kind) + " manifest (" +
                                (plugin ? "\"actions\", \"http_routes\", \"images\", \"policy\"" : "\"runtimes\"") + ")");
    }
    if (plugin && provides.contains("actions")) {
        auto specs = parse_action_specs(provides.at("actions"));
        if (!specs) return specs.as_failure();
        m.actions = std::move(specs).value();
        for (const auto &a : m.actions) m.provides.push_back(a.name);
    }
    if (auto r = plugin ? string_list(provides, "http_routes", m.http_routes, "provides")
                        : string_list(provides, "runtimes", m.provides, "provides");
        !r)
        return r;
    for (const auto &route : m.http_routes) {
        if (!valid_route(route))
            return common::fail("\"provides.http_routes\" entries must be absolute paths without query, got \"" + route + "\"");
    }
    if (plugin && provides.contains("images"))
        if (auto r = parse_image_feeds(provides.at("images"), m); !r) return r;
    if (plugin && provides.contains("policy")) {
        if (!provides.at("policy").is_boolean()) return common::fail("\"provides.policy\" must be true or false");
        m.policy = provides.at("policy").get<bool>();
    }
    if (m.provides.empty() && m.http_routes.empty() && !m.policy)
        return common::fail(plugin ? "\"provides\" must list at least one name in \"actions\" or \"http_routes\", or say \"policy\": true"
                                   : "\"provides.runtimes\" must list at least one name");
    return common::ok();
}

common::Status string_map(const nlohmann::ordered_json &v, const std::string &where, std::map<std::string, std::string> &out) {
    if (!v.is_object())
        return common::fail(where + " must be an object of strings");
    for (const auto &[k, val] : v.items()) {
        if (!val.is_string() || k.empty())
            return common::fail(where + " must be an object of strings");
        out[k] = val.get<std::string>();
    }
    return common::ok();
}

// The fields by which a plugin tells the host what it needs from it without the host knowing the plugin:
// load, isolation, options, disabled_when, unavailable_error, route_fallbacks, python.
common::Status parse_plugin_fields(const nlohmann::ordered_json &j, Manifest &m) {
    static const char *const kPluginOnly[] = {"load", "isolation", "options", "disabled_when", "unavailable_error", "route_fallbacks", "python"};
    if (m.kind != ModuleKind::Plugin) {
        for (const char *key : kPluginOnly)
            if (j.contains(key))
                return common::fail(std::string("\"") + key + "\" is a field of plugin manifests only");
        return common::ok();
    }
    if (j.contains("load")) {
        if (!j.at("load").is_string() || (j.at("load") != "always" && j.at("load") != "on_demand"))
            return common::fail("\"load\" must be \"always\" or \"on_demand\"");
        m.autoload = j.at("load") == "always";
    }
    if (j.contains("isolation")) {
        if (!j.at("isolation").is_string() || (j.at("isolation") != "process" && j.at("isolation") != "none"))
            return common::fail("\"isolation\" must be \"process\" (a child process of the host) or \"none\" (in the host, the default)");
        m.isolate_process = j.at("isolation") == "process";
    }
    if (j.contains("options")) {
        if (!j.at("options").is_object())
            return common::fail("\"options\" must be an object of flags");
        for (const auto &[flag, spec] : j.at("options").items()) {
            const std::string where = "\"options." + flag + "\"";
            if (!valid_flag(flag) || !spec.is_object())
                return common::fail(where + " must be a --lower-case-flag with an object");
            OptionSpec o;
            o.flag = flag;
            for (const auto &[key, value] : spec.items()) {
                if (key == "sets") {
                    if (auto r = string_map(value, where + ".sets", o.sets); !r) return r;
                } else if (key == "value_of") {
                    if (!value.is_string() || value.get<std::string>().empty())
                        return common::fail(where + ".value_of must be a configuration key");
                    o.value_of = value.get<std::string>();
                } else if (key == "description" && value.is_string()) {
                    o.description = value.get<std::string>();
                } else {
                    return common::fail(where + " has the unknown field \"" + key + "\" (sets, value_of, description)");
                }
            }
            if (o.sets.empty() == o.value_of.empty())
                return common::fail(where + " needs exactly one of \"sets\" and \"value_of\"");
            m.options.push_back(std::move(o));
        }
    }
    if (j.contains("disabled_when"))
        if (auto r = string_map(j.at("disabled_when"), "\"disabled_when\"", m.disabled_when); !r) return r;
    if (j.contains("unavailable_error")) {
        if (!j.at("unavailable_error").is_string())
            return common::fail("\"unavailable_error\" must be a string");
        m.unavailable_error = j.at("unavailable_error").get<std::string>();
    }
    if (j.contains("route_fallbacks")) {
        if (!j.at("route_fallbacks").is_object())
            return common::fail("\"route_fallbacks\" must be an object of routes");
        for (const auto &[path, reply] : j.at("route_fallbacks").items()) {
            if (std::find(m.http_routes.begin(), m.http_routes.end(), path) == m.http_routes.end() || !reply.is_object() ||
                !reply.contains("status") || !reply.at("status").is_number_integer() || !reply.contains("body"))
                return common::fail("\"route_fallbacks." + path + "\" must be one of provides.http_routes with {\"status\": int, \"body\": ...}");
            m.route_fallbacks[path] = nlohmann::json::parse(actionhost::common::dump_ordered_json(reply));
        }
    }
    if (j.contains("python")) {
        const auto &py = j.at("python");
        if (!py.is_object())
            return common::fail("\"python\" must be an object");
        if (auto r = string_list(py, "path", m.python_path, "python"); !r) return r;
        if (auto r = string_list(py, "startup_imports", m.python_startup_imports, "python"); !r) return r;
        for (const auto &dir : m.python_path)
            if (dir.empty() || dir.front() == '/' || dir.find("..") != std::string::npos)
                return common::fail("\"python.path\" entries must be directories inside the plugin's, got \"" + dir + "\"");
        for (const auto &mod : m.python_startup_imports)
            if (!valid_module(mod))
                return common::fail("\"python.startup_imports\" entries must be Python module names, got \"" + mod + "\"");
    }
    return common::ok();
}

// "needs": [{"name", "description", "package", "executables"?, "python_module"?, "bundled"?,
// "configured_by"?}, ...]. A need that could never be met (no executable, nothing bundled) is refused.
common::Status parse_needs(const nlohmann::ordered_json &needs, Manifest &m) {
    if (!needs.is_array())
        return common::fail("\"needs\" must be an array of objects");
    for (const auto &n : needs) {
        if (!n.is_object())
            return common::fail("\"needs\" must be an array of objects");
        ImageNeed need;
        for (const auto &[key, _] : n.items()) {
            static const std::vector<std::string> known = {"name", "description", "package", "executables", "python_module", "bundled", "configured_by"};
            if (std::find(known.begin(), known.end(), key) == known.end())
                return common::fail("\"needs[]." + key + "\" is not a field of a need");
        }
        auto text = [&](const char *key, std::string &out, bool required) -> common::Status {
            const bool given = n.contains(key);
            if (given ? !n.at(key).is_string() || n.at(key).get<std::string>().empty() : required)
                return common::fail(std::string("\"needs[].") + key + "\" must be a non-empty string");
            if (given) out = n.at(key).get<std::string>();
            return common::ok();
        };
        for (auto r : {text("name", need.name, true), text("description", need.description, true), text("package", need.package, true),
                       text("python_module", need.python_module, false), text("bundled", need.bundled, false),
                       string_list(n, "executables", need.executables, "needs[]"),
                       string_list(n, "configured_by", need.configured_by, "needs[]")})
            if (!r) return r;
        const auto lower_name_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; };
        if (need.name.size() > 64 || need.name[0] == '_' || need.name[0] == '.' || need.name[0] == '-' || !all_of(need.name, lower_name_char))
            return common::fail("\"needs[].name\" must match [a-z0-9][a-z0-9_.-]*, got \"" + need.name + "\"");
        if (need.executables.empty() && need.bundled.empty())
            return common::fail("need \"" + need.name + "\" lists no \"executables\" and nothing \"bundled\"");
        if (!need.bundled.empty() && (need.bundled[0] == '/' || need.bundled.find("..") != std::string::npos))
            return common::fail("\"needs[].bundled\" must be a path inside the install tree, got \"" + need.bundled + "\"");
        m.needs.push_back(std::move(need));
    }
    return common::ok();
}

}  // namespace

std::string to_string(const ah_version_t &v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

std::string to_string(ModuleKind kind) { return kind == ModuleKind::Plugin ? "plugin" : "runtime"; }

common::Result<Manifest> parse_manifest(std::string_view json_text, const std::string &dir) {
    // Parsed once, keeping the file's key order (the order of an action's argument checks).
    nlohmann::ordered_json j;
    try {
        j = nlohmann::ordered_json::parse(json_text);
    } catch (const nlohmann::json::exception &e) {
        return common::fail(std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object())
        return common::fail("must be a JSON object");
    Manifest m;
    m.dir = dir;
    std::string kind, abi;
    for (auto [key, out] : {std::pair<const char *, std::string *>{"name", &m.name}, {"kind", &kind}, {"version", &m.version},
                            {"abi_version", &abi}, {"library", &m.library}}) {
        if (!j.contains(key) || !j.at(key).is_string() || j.at(key).get<std::string>().empty())
            return common::fail(std::string("\"") + key + "\" must be a non-empty string");
        *out = j.at(key).get<std::string>();
    }
    if (!valid_name(m.name))
        return common::fail("\"name\" must match [A-Za-z0-9_][A-Za-z0-9_.-]*, got \"" + m.name + "\"");
    if (kind == "plugin") {
        m.kind = ModuleKind::Plugin;
    } else if (kind == "runtime") {
        m.kind = ModuleKind::Runtime;
    } else {
        return common::fail("\"kind\" must be \"plugin\" or \"runtime\", got \"" + kind + "\"");
    }
    if (!parse_version(abi, m.abi_version))
        return common::fail("\"abi_version\" must be MAJOR.MINOR.PATCH, got \"" + abi + "\"");
    // The library must sit beside the manifest: no directories, so a manifest cannot point elsewhere.
    if (m.library.find('/') != std::string::npos || m.library == "." || m.library == "..")
        return common::fail("\"library\" must be a file name beside the manifest, got \"" + m.library + "\"");
    if (j.contains("description") && j.at("description").is_string()) m.description = j.at("description");
    if (j.contains("never_unload")) {
        if (!j.at("never_unload").is_boolean())
            return common::fail("\"never_unload\" must be a boolean");
        m.never_unload = j.at("never_unload").get<bool>();
    }
    if (j.contains("plugin_dirs")) {
        if (m.kind != ModuleKind::Runtime || !j.at("plugin_dirs").is_boolean())
            return common::fail("\"plugin_dirs\" must be a boolean, in a runtime manifest");
        m.plugin_dirs = j.at("plugin_dirs").get<bool>();
    }
    if (j.contains("sandbox_keys")) {
        const nlohmann::json &keys = j.at("sandbox_keys");
        if (m.kind != ModuleKind::Runtime || !keys.is_array())
            return common::fail("\"sandbox_keys\" must be a list of [sandbox] key names, in a runtime manifest");
        for (const auto &k : keys) {
            const bool name = k.is_string() && !k.get<std::string>().empty() &&
                              k.get<std::string>().find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
            if (!name) return common::fail("\"sandbox_keys\": " + common::dump_json(k) + " is not a [sandbox] key name");
            m.sandbox_keys.push_back(k.get<std::string>());
        }
    }
    if (j.contains("network_keys")) {
        const nlohmann::json &keys = j.at("network_keys");
        if (m.kind != ModuleKind::Runtime || !(keys.is_boolean() || keys.is_array()))
            return common::fail("\"network_keys\" must be true, false or a list of the network keys, in a runtime manifest");
        if (keys.is_boolean()) {
            if (keys.get<bool>()) m.network_keys = kNetworkKeys;
        } else {
            for (const auto &k : keys) {
                const bool known = k.is_string() && std::find(kNetworkKeys.begin(), kNetworkKeys.end(), k.get<std::string>()) != kNetworkKeys.end();
                if (!known) {
                    std::string names;
                    for (const auto &n : kNetworkKeys) names += (names.empty() ? "" : ", ") + n;
                    return common::fail("\"network_keys\": " + common::dump_json(k) + " is not a network key (" + names + ")");
                }
                m.network_keys.push_back(k.get<std::string>());
            }
        }
    }
    if (!j.contains("provides") || !j.at("provides").is_object())
        return common::fail("\"provides\" must be an object");
    if (auto r = parse_provides(j.at("provides"), m); !r) return r.as_failure();
    if (j.contains("load_on_route")) {
        if (!j.at("load_on_route").is_boolean())
            return common::fail("\"load_on_route\" must be a boolean");
        m.load_on_route = j.at("load_on_route").get<bool>();
        if (m.load_on_route && m.http_routes.empty())
            return common::fail("\"load_on_route\" needs \"provides.http_routes\"");
    }
    if (auto r = parse_plugin_fields(j, m); !r) return r.as_failure();
    if (j.contains("requires")) {
        if (!j.at("requires").is_object())
            return common::fail("\"requires\" must be an object");
        if (auto r = string_list(j.at("requires"), "executables", m.requires_executables, "requires"); !r) return r.as_failure();
        if (auto r = required_plugins(j.at("requires"), m); !r) return r.as_failure();
    }
    if (j.contains("needs"))
        if (auto r = parse_needs(j.at("needs"), m); !r) return r.as_failure();
    return m;
}

common::Result<Manifest> read_manifest(const std::string &path) {
    std::ifstream in(path);
    if (!in) return common::fail("cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_manifest(ss.str(), std::filesystem::path(path).parent_path().string());
}

}  // namespace actionhost::modules
