#include "server_config.hpp"

#include <boost/program_options/parsers.hpp>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/result.hpp>
#include <algorithm>
#include <regex>

namespace actionhost::mcp {
namespace {

std::string strip(const std::string &s) {
    const auto b = s.find_first_not_of(" \t\n\r\f\v");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\n\r\f\v");
    return s.substr(b, e - b + 1);
}

// Checks shell quoting the way shlex.split refuses it: an unterminated quote or a trailing escape.
bool balanced_quotes(const std::string &s) {
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote == '\'') {
            if (c == '\'') quote = 0;
        } else if (c == '\\') {
            if (++i >= s.size()) return false;
        } else if (quote == '"') {
            if (c == '"') quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        }
    }
    return quote == 0;
}

// One item, or the reason it is refused.
common::Status parse_item(const nlohmann::json &item, StdioServerConfig &out) {
    if (!item.is_object()) return common::fail("must be an object with \"name\" and \"command\"");
    if (!item.contains("name") || !item["name"].is_string()) return common::fail("\"name\" must be a string");
    out.name = strip(item["name"].get<std::string>());
    if (out.name.empty()) return common::fail("Server name cannot be empty");
    static const std::regex name_re("^[a-zA-Z0-9_-]+$");
    if (!std::regex_match(out.name, name_re))
        return common::fail("Server name can only contain letters, numbers, hyphens, and underscores");
    if (!item.contains("command") || !item["command"].is_string()) return common::fail("\"command\" must be a string");
    out.command = strip(item["command"].get<std::string>());
    if (out.command.empty()) return common::fail("Command cannot be empty");
    if (out.command.find(' ') != std::string::npos)
        return common::fail("Command should be a single executable without spaces (use arguments field for parameters)");

    const nlohmann::json args = item.value("args", nlohmann::json::array());
    if (args.is_string()) {
        const std::string text = strip(args.get<std::string>());
        if (!balanced_quotes(text)) return common::fail("Invalid argument format: No closing quotation");
        if (!text.empty()) out.args = boost::program_options::split_unix(text);
    } else if (args.is_array()) {
        for (const auto &a : args) {
            if (!a.is_string()) return common::fail("\"args\" must be a list of strings or one string");
            out.args.push_back(a.get<std::string>());
        }
    } else if (!args.is_null()) {
        return common::fail("\"args\" must be a list of strings or one string");
    }

    const nlohmann::json env = item.value("env", nlohmann::json::object());
    static const std::regex key_re("^[a-zA-Z_][a-zA-Z0-9_]*$");
    auto add_env = [&](const std::string &k, const std::string &v) {
        auto it = std::find_if(out.env.begin(), out.env.end(), [&](const auto &p) { return p.first == k; });
        if (it != out.env.end()) it->second = v;
        else out.env.emplace_back(k, v);
    };
    if (env.is_string()) {
        // "K=V,K2=V2", as OpenHands accepts it.
        std::string text = env.get<std::string>();
        size_t start = 0;
        while (start <= text.size()) {
            size_t comma = text.find(',', start);
            if (comma == std::string::npos) comma = text.size();
            const std::string pair = strip(text.substr(start, comma - start));
            start = comma + 1;
            if (pair.empty()) continue;
            const auto eq = pair.find('=');
            if (eq == std::string::npos) return common::fail("Environment variable '" + pair + "' must be in KEY=VALUE format");
            const std::string key = strip(pair.substr(0, eq));
            if (key.empty()) return common::fail("Environment variable key cannot be empty");
            if (!std::regex_match(key, key_re))
                return common::fail("Invalid environment variable name '" + key +
                                    "'. Must start with letter or underscore, contain only alphanumeric characters and underscores");
            add_env(key, pair.substr(eq + 1));
        }
    } else if (env.is_object()) {
        for (const auto &[k, v] : env.items()) {
            if (!v.is_string()) return common::fail("\"env\" values must be strings");
            if (k.empty() || k.find('=') != std::string::npos || k.find('\0') != std::string::npos)
                return common::fail("\"env\" has an invalid variable name '" + k + "'");
            add_env(k, v.get<std::string>());
        }
    } else if (!env.is_null()) {
        return common::fail("\"env\" must be an object of strings or one \"K=V,...\" string");
    }
    for (const auto &a : out.args)
        if (a.find('\0') != std::string::npos) return common::fail("\"args\" must not contain NUL characters");
    if (out.command.find('\0') != std::string::npos) return common::fail("\"command\" must not contain NUL characters");
    return common::ok();
}

}  // namespace

ConfigParse parse_update_body(std::string_view body) {
    ConfigParse r;
    auto parsed = common::parse_json(body);
    if (!parsed) {
        r.status = 422;
        r.detail = "Invalid request parameters";
        r.errors = "body is not valid JSON: " + parsed.error().message;
        return r;
    }
    if (!parsed.value().is_array()) {
        r.status = 400;
        r.detail = "Request must be a list of MCP tools to sync";
        return r;
    }
    std::vector<StdioServerConfig> servers;
    size_t index = 0;
    for (const auto &item : parsed.value()) {
        StdioServerConfig cfg;
        if (auto valid = parse_item(item, cfg); !valid) {
            r.status = 422;
            r.detail = "Invalid request parameters";
            r.errors = "item " + std::to_string(index) + ": " + valid.error().message;
            return r;
        }
        auto same = std::find_if(servers.begin(), servers.end(), [&](const auto &s) { return s.name == cfg.name; });
        if (same != servers.end()) *same = std::move(cfg);
        else servers.push_back(std::move(cfg));
        ++index;
    }
    r.servers = std::move(servers);
    return r;
}

}  // namespace actionhost::mcp
