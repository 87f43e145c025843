#include "actionhost/client/config.hpp"
#include <actionhost/common/text.hpp>

#include <actionhost/common/edit_distance.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "actionhost/client/errors.hpp"
#include "config_schema.hpp"
#include <actionhost/common/json_write.hpp>

extern char **environ;

namespace actionhost::client {

using nlohmann::json;
using detail::Field;
using detail::FieldType;

Environment current_environment() {
    Environment env;
    for (char **e = environ; e && *e; ++e) {
        std::string kv = *e;
        auto eq = kv.find('=');
        if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return env;
}

namespace {

const std::vector<Field> *fields_of(const std::string &section) {
    if (section == "core") return &detail::core_fields();
    if (section == "sandbox") return &detail::sandbox_fields();
    if (section == "kubernetes") return &detail::kubernetes_fields();
    if (section == "security") return &detail::security_fields();
    return nullptr;
}

// The checked sections, and the prefix of their environment overrides (OpenHands' names).
const std::pair<const char *, const char *> kCheckedSections[] = {{"core", ""}, {"sandbox", "SANDBOX_"}, {"kubernetes", "KUBERNETES_"},
                                                                   {"security", "SECURITY_"}};


// OpenHands' sections that hold no runtime setting (its agent's, LLMs', condenser's, MCP client's,
// extensions'): they load, and are listed once as ignored. ([security] is checked: the host's policy.)
const char *const kOpenHandsSectionsUnused[] = {"agent", "llm", "condenser", "mcp", "extended"};


// The checked section that `section` misspells, or "": the same name in other letter case, or for
// names longer than five letters one at most two edits away. Any other section passes through for
// the backends (`[modal]`, a vendor's own), so a whole [sandbox] spelt [sandbx] must not vanish in it.
std::string misspelt_section(const std::string &section) {
    for (const auto &[checked, prefix] : kCheckedSections) {
        const std::string name = checked;
        if (section == name) return "";
        if (actionhost::common::ascii_lower(section) == name) return name;
        if (name.size() > 5 && actionhost::common::edit_distance(actionhost::common::ascii_lower(section), name) <= 2) return name;
    }
    return "";
}

// The key of `section` that `key` misspells, or "": at most two edits away (one for short keys), and
// only a key that is used — a near miss of an ignored key is just another ignored key.
std::string misspelling_of(const std::string &section, const std::string &key) {
    std::string best;
    size_t best_distance = key.size() <= 5 ? 1 : 2;
    for (const auto &f : *fields_of(section)) {
        if (!f.used) continue;
        const size_t d = actionhost::common::edit_distance(key, f.name);
        if (d <= best_distance) {
            best = f.name;
            best_distance = d;
        }
    }
    return best;
}

const Field *find_field(const std::string &section, const std::string &key) {
    const auto *fields = fields_of(section);
    if (!fields) return nullptr;
    for (const auto &f : *fields)
        if (f.name == key) return &f;
    return nullptr;
}

json toml_to_json(const toml::node &node) {
    if (auto *t = node.as_table()) {
        json out = json::object();
        for (auto &&[k, v] : *t) out[std::string(k.str())] = toml_to_json(v);
        return out;
    }
    if (auto *a = node.as_array()) {
        json out = json::array();
        for (auto &&v : *a) out.push_back(toml_to_json(v));
        return out;
    }
    if (auto *s = node.as_string()) return s->get();
    if (auto *i = node.as_integer()) return i->get();
    if (auto *f = node.as_floating_point()) return f->get();
    if (auto *b = node.as_boolean()) return b->get();
    std::ostringstream text;  // dates and times: their TOML text
    node.visit([&](auto &&v) { text << v; });
    return text.str();
}

bool type_ok(FieldType type, const json &v) {
    switch (type) {
        case FieldType::Bool: return v.is_boolean();
        case FieldType::Int: return v.is_number_integer();
        case FieldType::Float: return v.is_number();
        case FieldType::Str: return v.is_string();
        case FieldType::List: return v.is_array();
        case FieldType::Dict: return v.is_object();
        case FieldType::Any: return true;
    }
    return false;
}

// Python literal (what OpenHands' env overrides take for lists and dicts) to JSON text: single-quoted
// strings, True/False/None. JSON itself passes through unchanged.
std::string python_literal_to_json(const std::string &in) {
    std::string out;
    for (size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '"' || c == '\'') {
            char quote = c;
            out += '"';
            for (++i; i < in.size() && in[i] != quote; ++i) {
                if (in[i] == '\\' && i + 1 < in.size()) {
                    if (in[i + 1] == '\'') out += '\'';
                    else { out += in[i]; out += in[i + 1]; }
                    ++i;
                } else if (in[i] == '"') {
                    out += "\\\"";
                } else {
                    out += in[i];
                }
            }
            out += '"';
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            size_t j = i;
            while (j < in.size() && (std::isalnum(static_cast<unsigned char>(in[j])) || in[j] == '_')) ++j;
            std::string word = in.substr(i, j - i);
            if (word == "True") out += "true";
            else if (word == "False") out += "false";
            else if (word == "None") out += "null";
            else out += word;
            i = j - 1;
        } else if (c == '(') {
            out += '[';
        } else if (c == ')') {
            out += ']';
        } else {
            out += c;
        }
    }
    return out;
}

json parse_env_value(const Field &field, const std::string &name, const std::string &text) {
    auto bad = [&](const char *why) {
        return ConfigError("Environment variable " + name + "=" + text + ": " + why);
    };
    try {
        switch (field.type) {
            case FieldType::Bool: {
                const std::string lower = actionhost::common::ascii_lower(text);
                return lower == "true" || lower == "1";
            }
            case FieldType::Int: {
                size_t used = 0;
                long long v = std::stoll(text, &used);
                if (used != text.size()) throw bad("not an integer");
                return v;
            }
            case FieldType::Float: {
                size_t used = 0;
                double v = std::stod(text, &used);
                if (used != text.size()) throw bad("not a number");
                return v;
            }
            case FieldType::Str:
            case FieldType::Any: return text;
            case FieldType::List:
            case FieldType::Dict: {
                json v = json::parse(python_literal_to_json(text));
                if (!type_ok(field.type, v)) throw bad(field.type == FieldType::List ? "not a list" : "not a dict");
                return v;
            }
        }
    } catch (const ConfigError &) {
        throw;
    } catch (const std::exception &) {
        throw bad(field.type == FieldType::Int ? "not an integer"
                  : field.type == FieldType::Float ? "not a number"
                                                   : "not a valid literal");
    }
    return text;
}

std::string upper(std::string s) {
    for (auto &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

Config::Config() {
    sections_ = json::object();
    for (const auto &[section, prefix] : kCheckedSections) {
        json &s = sections_[section] = json::object();
        for (const auto &f : *fields_of(section)) s[f.name] = f.default_value;
    }
}

void Config::set_checked(const std::string &section, const std::string &key, const json &value,
                         const std::string &origin) {
    explicit_keys_.insert(section + "." + key);
    if (fields_of(section)) {
        const Field *f = find_field(section, key);
        if (!f) {
            // As OpenHands: [core] takes keys it does not know (they are listed as ignored), [sandbox] and
            // [kubernetes] refuse them. A near miss of a key we use is refused everywhere.
            const std::string suggestion = misspelling_of(section, key);
            if (!suggestion.empty())
                throw ConfigError(origin + ": unknown key '" + key + "' in [" + section + "]; did you mean '" + suggestion + "'?");
            if (section != "core")
                throw ConfigError(origin + ": unknown key '" + key + "' in [" + section + "] (OpenHands allows no extra keys here)");
            ignored_keys_.push_back(section + "." + key);
            unknown_keys_.push_back(section + "." + key);
            sections_[section][key] = value;
            return;
        }
        if (!f->used) ignored_keys_.push_back(section + "." + key);
        if (value.is_null() ? !f->nullable : !type_ok(f->type, value))
            throw ConfigError(origin + ": [" + section + "] " + key + " must be " + detail::type_name(f->type));
        // Integers given for a float field stay numbers; store as float for a uniform rendering.
        sections_[section][key] = (f->type == FieldType::Float && value.is_number()) ? json(value.get<double>()) : value;
        return;
    }
    sections_[section][key] = value;
}

Config Config::from_toml(const std::string &text, const std::string &origin) {
    toml::table table;
    try {
        table = toml::parse(text, origin);
    } catch (const toml::parse_error &e) {
        std::ostringstream msg;
        msg << origin << ":" << e.source().begin.line << ":" << e.source().begin.column << ": " << e.description();
        throw ConfigError(msg.str());
    }
    Config config;
    for (auto &&[name, node] : table) {
        std::string section(name.str());
        auto *sub = node.as_table();
        if (!sub) {
            // OpenHands reads top-level keys as [core] too (legacy configs); keep that.
            config.set_checked("core", section, toml_to_json(node), origin);
            continue;
        }
        if (const std::string meant = misspelt_section(section); !meant.empty())
            throw ConfigError(origin + ": unknown section [" + section + "]; did you mean [" + meant + "]?");
        if (std::find(std::begin(kOpenHandsSectionsUnused), std::end(kOpenHandsSectionsUnused), section) !=
            std::end(kOpenHandsSectionsUnused))
            config.ignored_keys_.push_back("[" + section + "]");
        if (!config.sections_.contains(section)) config.sections_[section] = json::object();
        for (auto &&[k, v] : *sub) config.set_checked(section, std::string(k.str()), toml_to_json(v), origin);
    }
    return config;
}

Config Config::from_file(const std::string &path) {
    // A directory opens and reads as nothing: a mistyped -c would silently drop the whole configuration.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ConfigError("Cannot read config file " + path + ": it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError("Cannot read config file " + path);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ConfigError("Cannot read config file " + path);
    return from_toml(text.str(), path);
}

Config Config::load(const std::optional<std::string> &path, const Environment &env) {
    Config config;
    if (path) {
        config = from_file(*path);
    } else if (std::error_code ec; std::filesystem::exists(std::filesystem::symlink_status("config.toml", ec))) {
        Config found = from_file("config.toml");
        Config with_env = found;
        with_env.apply_env(env);
        check_implicit_config("config.toml", with_env.get_text("core.workspace_base"));
        config = std::move(found);
    }
    config.apply_env(env);
    return config;
}

void Config::check_implicit_config(const std::string &file, const std::optional<std::string> &workspace) {
    namespace fs = std::filesystem;
    const std::string advice = ". An agent could have written it; pass it with -c " + file + " if you trust it.";
    struct stat st{};
    if (::lstat(file.c_str(), &st) != 0) return;
    if (!S_ISREG(st.st_mode)) throw ConfigError(file + " was not read: it is not a regular file (a symbolic link?)" + advice);
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        throw ConfigError(file + " was not read: it belongs to uid " + std::to_string(st.st_uid) + ", not to you" + advice);
    if (st.st_mode & (S_IWGRP | S_IWOTH)) throw ConfigError(file + " was not read: other users may write it" + advice);
    if (workspace && !workspace->empty()) {
        std::error_code ec;
        const fs::path ws = fs::weakly_canonical(*workspace, ec);
        const fs::path here = fs::weakly_canonical(fs::absolute(file, ec).parent_path(), ec);
        auto [end, at] = std::mismatch(ws.begin(), ws.end(), here.begin(), here.end());
        if (!ws.empty() && end == ws.end())
            throw ConfigError(file + " was not read: it lies inside the workspace " + ws.string() + ", which the sandbox writes to" + advice);
    }
}

void Config::apply_env(const Environment &env) {
    for (const auto &[section, prefix] : kCheckedSections) {
        for (const auto &f : *fields_of(section)) {
            std::string name = prefix + upper(f.name);
            auto it = env.find(name);
            if (it == env.end() || it->second.empty()) continue;
            if (f.type == FieldType::Any && !f.used) continue;  // unused OpenHands keys: never overridden here
            sections_[section][f.name] = parse_env_value(f, name, it->second);
            explicit_keys_.insert(std::string(section) + "." + f.name);
        }
    }
    // SANDBOX_VOLUMES with a :/workspace target also picks the workspace (OpenHands does the same).
    if (auto volumes = get_text("sandbox.volumes")) {
        std::stringstream list(*volumes);
        std::string item;
        while (std::getline(list, item, ',')) {
            auto first = item.find(':');
            if (first == std::string::npos) continue;
            std::string host = item.substr(0, first);
            std::string rest = item.substr(first + 1);
            std::string target = rest.substr(0, rest.find(':'));
            if (target == get_string("core.workspace_mount_path_in_sandbox", "/workspace")) {
                sections_["core"]["workspace_base"] = host;
                sections_["core"]["workspace_mount_path"] = host;
            }
        }
    }
    const std::string env_prefix = "SANDBOX_ENV_";
    for (const auto &[k, v] : env)
        if (k.size() > env_prefix.size() && k.rfind(env_prefix, 0) == 0) sandbox_env_[upper(k.substr(env_prefix.size()))] = v;
}

json Config::get(const std::string &key) const {
    auto dot = key.find('.');
    if (dot == std::string::npos) return nullptr;
    std::string section = key.substr(0, dot), name = key.substr(dot + 1);
    auto s = sections_.find(section);
    if (s == sections_.end() || !s->is_object()) return nullptr;
    auto v = s->find(name);
    return v == s->end() ? json(nullptr) : *v;
}

std::optional<std::string> Config::get_text(const std::string &key) const {
    json v = get(key);
    if (v.is_null()) return std::nullopt;
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    return actionhost::common::dump_json(v);
}

void Config::set(const std::string &key, const json &value) {
    auto dot = key.find('.');
    if (dot == std::string::npos) throw ConfigError("Config key must be <section>.<key>: " + key);
    std::string section = key.substr(0, dot);
    if (!sections_.contains(section)) sections_[section] = json::object();
    set_checked(section, key.substr(dot + 1), value, "setting " + key);
}

std::string Config::runtime() const { return get_string("core.runtime", "docker"); }

bool Config::get_bool(const std::string &key) const {
    json v = get(key);
    return v.is_boolean() ? v.get<bool>() : false;
}

double Config::get_number(const std::string &key, double fallback) const {
    json v = get(key);
    return v.is_number() ? v.get<double>() : fallback;
}

std::string Config::get_string(const std::string &key, const std::string &fallback) const {
    json v = get(key);
    return v.is_string() ? v.get<std::string>() : fallback;
}

}  // namespace actionhost::client
