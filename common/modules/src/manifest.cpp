#include "actionhost/modules/manifest.hpp"

#include <actionhost/common/json_io.hpp>

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

bool string_list(const nlohmann::ordered_json &obj, const char *key, std::vector<std::string> &out, std::string &error,
                 const std::string &where) {
    if (!obj.contains(key)) return true;
    const auto &v = obj.at(key);
    if (!v.is_array()) {
        error = where + "." + key + " must be an array of strings";
        return false;
    }
    for (const auto &item : v) {
        if (!item.is_string()) {
            error = where + "." + key + " must be an array of strings";
            return false;
        }
        out.push_back(item.get<std::string>());
    }
    return true;
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

// "provides.images": [{"dir": "relative/dir", "title": "..."}] (see ImageFeed).
bool parse_image_feeds(const nlohmann::ordered_json &v, Manifest &m, std::string &error) {
    error = "\"provides.images\" must be a list of {\"dir\": a relative directory without \"..\", \"title\": text}";
    if (!v.is_array()) return false;
    for (const auto &feed : v) {
        if (!feed.is_object() || feed.size() != 2 || !feed.contains("dir") || !feed.contains("title") || !feed["dir"].is_string() ||
            !feed["title"].is_string())
            return false;
        const std::string dir = feed["dir"], title = feed["title"];
        if (dir.empty() || dir[0] == '/' || dir == ".." || dir.rfind("../", 0) == 0 || dir.find("/../") != std::string::npos ||
            (dir.size() >= 3 && dir.compare(dir.size() - 3, 3, "/..") == 0) || title.empty() || title.size() > 64)
            return false;
        m.image_feeds.push_back({dir, title});
    }
    error.clear();
    return true;
}

// "provides": a plugin lists "actions" and/or "http_routes" (at least one name in all) and may list
// "images", a runtime "runtimes"; any other key is refused, so a typo cannot silently provide nothing. Actions are read
// in the file's order (the order of the checks).
bool parse_provides(const nlohmann::ordered_json &provides, Manifest &m, std::string &error) {
    const bool plugin = m.kind == ModuleKind::Plugin;
    for (const auto &[key, _] : provides.items()) {
        const bool known = plugin ? (key == "actions" || key == "http_routes" || key == "images") : key == "runtimes";
        if (!known) {
            error = "\"provides." + key + "\" is not a field of a " + to_string(m.kind) + " manifest (" +
                    (plugin ? "\"actions\", \"http_routes\", \"images\"" : "\"runtimes\"") + ")";
            return false;
        }
    }
    if (plugin && provides.contains("actions")) {
        auto specs = parse_action_specs(provides.at("actions"), error);
        if (!specs) return false;
        m.actions = std::move(*specs);
        for (const auto &a : m.actions) m.provides.push_back(a.name);
    }
    if (!plugin && !string_list(provides, "runtimes", m.provides, error, "provides")) return false;
    if (plugin && !string_list(provides, "http_routes", m.http_routes, error, "provides")) return false;
    for (const auto &route : m.http_routes) {
        if (!valid_route(route)) {
            error = "\"provides.http_routes\" entries must be absolute paths without query, got \"" + route + "\"";
            return false;
        }
    }
    if (plugin && provides.contains("images") && !parse_image_feeds(provides.at("images"), m, error)) return false;
    if (m.provides.empty() && m.http_routes.empty()) {
        error = plugin ? "\"provides\" must list at least one name in \"actions\" or \"http_routes\""
                       : "\"provides.runtimes\" must list at least one name";
        return false;
    }
    return true;
}

bool string_map(const nlohmann::ordered_json &v, const std::string &where, std::map<std::string, std::string> &out, std::string &error) {
    if (!v.is_object()) {
        error = where + " must be an object of strings";
        return false;
    }
    for (const auto &[k, val] : v.items()) {
        if (!val.is_string() || k.empty()) {
            error = where + " must be an object of strings";
            return false;
        }
        out[k] = val.get<std::string>();
    }
    return true;
}

// The fields by which a plugin tells the host what it needs from it without the host knowing the plugin:
// load, options, disabled_when, unavailable_error, route_fallbacks, python.
bool parse_plugin_fields(const nlohmann::ordered_json &j, Manifest &m, std::string &error) {
    static const char *const kPluginOnly[] = {"load", "options", "disabled_when", "unavailable_error", "route_fallbacks", "python"};
    if (m.kind != ModuleKind::Plugin) {
        for (const char *key : kPluginOnly)
            if (j.contains(key)) {
                error = std::string("\"") + key + "\" is a field of plugin manifests only";
                return false;
            }
        return true;
    }
    if (j.contains("load")) {
        if (!j.at("load").is_string() || (j.at("load") != "always" && j.at("load") != "on_demand")) {
            error = "\"load\" must be \"always\" or \"on_demand\"";
            return false;
        }
        m.autoload = j.at("load") == "always";
    }
    if (j.contains("options")) {
        if (!j.at("options").is_object()) {
            error = "\"options\" must be an object of flags";
            return false;
        }
        for (const auto &[flag, spec] : j.at("options").items()) {
            const std::string where = "\"options." + flag + "\"";
            if (!valid_flag(flag) || !spec.is_object()) {
                error = where + " must be a --lower-case-flag with an object";
                return false;
            }
            OptionSpec o;
            o.flag = flag;
            for (const auto &[key, value] : spec.items()) {
                if (key == "sets") {
                    if (!string_map(value, where + ".sets", o.sets, error)) return false;
                } else if (key == "value_of") {
                    if (!value.is_string() || value.get<std::string>().empty()) {
                        error = where + ".value_of must be a configuration key";
                        return false;
                    }
                    o.value_of = value.get<std::string>();
                } else if (key == "description" && value.is_string()) {
                    o.description = value.get<std::string>();
                } else {
                    error = where + " has the unknown field \"" + key + "\" (sets, value_of, description)";
                    return false;
                }
            }
            if (o.sets.empty() == o.value_of.empty()) {
                error = where + " needs exactly one of \"sets\" and \"value_of\"";
                return false;
            }
            m.options.push_back(std::move(o));
        }
    }
    if (j.contains("disabled_when") && !string_map(j.at("disabled_when"), "\"disabled_when\"", m.disabled_when, error)) return false;
    if (j.contains("unavailable_error")) {
        if (!j.at("unavailable_error").is_string()) {
            error = "\"unavailable_error\" must be a string";
            return false;
        }
        m.unavailable_error = j.at("unavailable_error").get<std::string>();
    }
    if (j.contains("route_fallbacks")) {
        if (!j.at("route_fallbacks").is_object()) {
            error = "\"route_fallbacks\" must be an object of routes";
            return false;
        }
        for (const auto &[path, reply] : j.at("route_fallbacks").items()) {
            if (std::find(m.http_routes.begin(), m.http_routes.end(), path) == m.http_routes.end() || !reply.is_object() ||
                !reply.contains("status") || !reply.at("status").is_number_integer() || !reply.contains("body")) {
                error = "\"route_fallbacks." + path + "\" must be one of provides.http_routes with {\"status\": int, \"body\": ...}";
                return false;
            }
            m.route_fallbacks[path] = nlohmann::json::parse(reply.dump());
        }
    }
    if (j.contains("python")) {
        const auto &py = j.at("python");
        if (!py.is_object()) {
            error = "\"python\" must be an object";
            return false;
        }
        if (!string_list(py, "path", m.python_path, error, "python") ||
            !string_list(py, "startup_imports", m.python_startup_imports, error, "python"))
            return false;
        for (const auto &dir : m.python_path)
            if (dir.empty() || dir.front() == '/' || dir.find("..") != std::string::npos) {
                error = "\"python.path\" entries must be directories inside the plugin's, got \"" + dir + "\"";
                return false;
            }
        for (const auto &mod : m.python_startup_imports)
            if (!valid_module(mod)) {
                error = "\"python.startup_imports\" entries must be Python module names, got \"" + mod + "\"";
                return false;
            }
    }
    return true;
}

// "needs": [{"name", "description", "package", "executables"?, "python_module"?, "bundled"?,
// "configured_by"?}, ...]. A need that could never be met (no executable, nothing bundled) is refused.
bool parse_needs(const nlohmann::ordered_json &needs, Manifest &m, std::string &error) {
    if (!needs.is_array()) {
        error = "\"needs\" must be an array of objects";
        return false;
    }
    for (const auto &n : needs) {
        if (!n.is_object()) {
            error = "\"needs\" must be an array of objects";
            return false;
        }
        ImageNeed need;
        for (const auto &[key, _] : n.items()) {
            static const std::vector<std::string> known = {"name", "description", "package", "executables", "python_module", "bundled", "configured_by"};
            if (std::find(known.begin(), known.end(), key) == known.end()) {
                error = "\"needs[]." + key + "\" is not a field of a need";
                return false;
            }
        }
        auto text = [&](const char *key, std::string &out, bool required) {
            if (!n.contains(key)) {
                if (required) error = std::string("\"needs[].") + key + "\" must be a non-empty string";
                return !required;
            }
            if (!n.at(key).is_string() || n.at(key).get<std::string>().empty()) {
                error = std::string("\"needs[].") + key + "\" must be a non-empty string";
                return false;
            }
            out = n.at(key).get<std::string>();
            return true;
        };
        if (!text("name", need.name, true) || !text("description", need.description, true) ||
            !text("package", need.package, true) || !text("python_module", need.python_module, false) ||
            !text("bundled", need.bundled, false) ||
            !string_list(n, "executables", need.executables, error, "needs[]") ||
            !string_list(n, "configured_by", need.configured_by, error, "needs[]"))
            return false;
        const auto lower_name_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; };
        if (need.name.size() > 64 || need.name[0] == '_' || need.name[0] == '.' || need.name[0] == '-' || !all_of(need.name, lower_name_char)) {
            error = "\"needs[].name\" must match [a-z0-9][a-z0-9_.-]*, got \"" + need.name + "\"";
            return false;
        }
        if (need.executables.empty() && need.bundled.empty()) {
            error = "need \"" + need.name + "\" lists no \"executables\" and nothing \"bundled\"";
            return false;
        }
        if (!need.bundled.empty() && (need.bundled[0] == '/' || need.bundled.find("..") != std::string::npos)) {
            error = "\"needs[].bundled\" must be a path inside the install tree, got \"" + need.bundled + "\"";
            return false;
        }
        m.needs.push_back(std::move(need));
    }
    return true;
}

}  // namespace

std::string to_string(const ah_version_t &v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

std::string to_string(ModuleKind kind) { return kind == ModuleKind::Plugin ? "plugin" : "runtime"; }

ManifestParse parse_manifest(std::string_view json_text, const std::string &dir) {
    ManifestParse r;
    // Parsed once, keeping the file's key order (the order of an action's argument checks).
    nlohmann::ordered_json j;
    try {
        j = nlohmann::ordered_json::parse(json_text);
    } catch (const nlohmann::json::exception &e) {
        r.error = std::string("not valid JSON: ") + e.what();
        return r;
    }
    if (!j.is_object()) {
        r.error = "must be a JSON object";
        return r;
    }
    Manifest m;
    m.dir = dir;
    auto req_string = [&](const char *key, std::string &out) {
        if (!j.contains(key) || !j.at(key).is_string() || j.at(key).get<std::string>().empty()) {
            r.error = std::string("\"") + key + "\" must be a non-empty string";
            return false;
        }
        out = j.at(key).get<std::string>();
        return true;
    };
    std::string kind, abi;
    if (!req_string("name", m.name) || !req_string("kind", kind) || !req_string("version", m.version) ||
        !req_string("abi_version", abi) || !req_string("library", m.library))
        return r;
    if (!valid_name(m.name)) {
        r.error = "\"name\" must match [A-Za-z0-9_][A-Za-z0-9_.-]*, got \"" + m.name + "\"";
        return r;
    }
    if (kind == "plugin") {
        m.kind = ModuleKind::Plugin;
    } else if (kind == "runtime") {
        m.kind = ModuleKind::Runtime;
    } else {
        r.error = "\"kind\" must be \"plugin\" or \"runtime\", got \"" + kind + "\"";
        return r;
    }
    if (!parse_version(abi, m.abi_version)) {
        r.error = "\"abi_version\" must be MAJOR.MINOR.PATCH, got \"" + abi + "\"";
        return r;
    }
    // The library must sit beside the manifest: no directories, so a manifest cannot point elsewhere.
    if (m.library.find('/') != std::string::npos || m.library == "." || m.library == "..") {
        r.error = "\"library\" must be a file name beside the manifest, got \"" + m.library + "\"";
        return r;
    }
    if (j.contains("description") && j.at("description").is_string()) m.description = j.at("description");
    if (j.contains("never_unload")) {
        if (!j.at("never_unload").is_boolean()) {
            r.error = "\"never_unload\" must be a boolean";
            return r;
        }
        m.never_unload = j.at("never_unload").get<bool>();
    }
    if (j.contains("plugin_dirs")) {
        if (m.kind != ModuleKind::Runtime || !j.at("plugin_dirs").is_boolean()) {
            r.error = "\"plugin_dirs\" must be a boolean, in a runtime manifest";
            return r;
        }
        m.plugin_dirs = j.at("plugin_dirs").get<bool>();
    }
    if (!j.contains("provides") || !j.at("provides").is_object()) {
        r.error = "\"provides\" must be an object";
        return r;
    }
    if (!parse_provides(j.at("provides"), m, r.error)) return r;
    if (j.contains("load_on_route")) {
        if (!j.at("load_on_route").is_boolean()) {
            r.error = "\"load_on_route\" must be a boolean";
            return r;
        }
        m.load_on_route = j.at("load_on_route").get<bool>();
        if (m.load_on_route && m.http_routes.empty()) {
            r.error = "\"load_on_route\" needs \"provides.http_routes\"";
            return r;
        }
    }
    if (!parse_plugin_fields(j, m, r.error)) return r;
    if (j.contains("requires")) {
        if (!j.at("requires").is_object()) {
            r.error = "\"requires\" must be an object";
            return r;
        }
        if (!string_list(j.at("requires"), "executables", m.requires_executables, r.error, "requires") ||
            !string_list(j.at("requires"), "plugins", m.requires_plugins, r.error, "requires"))
            return r;
    }
    if (j.contains("needs") && !parse_needs(j.at("needs"), m, r.error)) return r;
    r.manifest = std::move(m);
    return r;
}

ManifestParse read_manifest(const std::string &path) {
    std::ifstream in(path);
    if (!in) return {std::nullopt, "cannot be read"};
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_manifest(ss.str(), std::filesystem::path(path).parent_path().string());
}

}  // namespace actionhost::modules
