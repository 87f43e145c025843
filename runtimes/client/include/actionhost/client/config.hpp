// config.toml ([core], [sandbox], any other section) plus OpenHands' environment overrides (every key and
// variable: docs/configuration.md).
//
// [core] and [sandbox] are validated against OpenHands' field lists (plus a few documented actionhost
// extension keys): an unknown key or a value of the wrong type is a ConfigError, as pydantic's
// `extra="forbid"` makes it in OpenHands. Other sections ([llm], [kubernetes], vendor sections) pass
// through unchecked so third-party runtimes can read them with config_get("<section>.<key>").
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace actionhost::client {

using Environment = std::map<std::string, std::string>;

// The current process environment as a map.
Environment current_environment();

class Config {
  public:
    // Defaults only (no file, no environment).
    Config();

    // Parses TOML text; `origin` names it in error messages. Throws ConfigError.
    static Config from_toml(const std::string &toml_text, const std::string &origin = "config.toml");
    // Reads `path` (must exist). Throws ConfigError.
    static Config from_file(const std::string &path);
    // `path` when given, else ./config.toml when it exists and is trusted (see
    // check_implicit_config; an untrusted one is a ConfigError), else defaults; then `env` overrides.
    static Config load(const std::optional<std::string> &path, const Environment &env);

    // Throws ConfigError (saying why) when a config file found implicitly (./config.toml, not named by the
    // user) must not be read: it is a symbolic link or not a regular file; it belongs to someone other
    // than the caller or root; others may write it; or it lies inside `workspace` (when given), the
    // directory a sandbox writes to — an agent could have written it there to choose the runtime, the
    // workspace or the seccomp setting of the user's next start. A missing file passes. A file given with
    // -c is the user's choice and is read.
    static void check_implicit_config(const std::string &file, const std::optional<std::string> &workspace);

    // Applies OpenHands' env overrides: `<FIELD>` for [core] (e.g. RUNTIME), `SANDBOX_<FIELD>` for
    // [sandbox], `KUBERNETES_<FIELD>` for [kubernetes]; bool = true/1 (anything else false); lists/dicts
    // as JSON or Python literals; empty values ignored. Throws ConfigError for a value that does not parse as its field's type.
    void apply_env(const Environment &env);

    // A value as JSON (null when unset). `key` is "core.runtime", "sandbox.timeout", "llm.model"...
    nlohmann::json get(const std::string &key) const;
    // The same rendered as text: strings as is, bool "true"/"false", numbers, arrays/tables as JSON;
    // nullopt when unset or null.
    std::optional<std::string> get_text(const std::string &key) const;
    // Sets one value, type-checked like the file's. Throws ConfigError.
    void set(const std::string &key, const nlohmann::json &value);

    // Typed helpers for the keys the library itself uses.
    std::string runtime() const;
    bool get_bool(const std::string &key) const;
    double get_number(const std::string &key, double fallback) const;
    std::string get_string(const std::string &key, const std::string &fallback = "") const;

    // Initial sandbox environment: SANDBOX_ENV_<X> → <X> from `env` (as OpenHands' Runtime), captured by
    // apply_env.
    const std::map<std::string, std::string> &sandbox_env() const { return sandbox_env_; }

    const nlohmann::json &sections() const { return sections_; }
    // True when `key` was set by the file, the environment or set() (not just its default).
    bool is_explicit(const std::string &key) const { return explicit_keys_.count(key) != 0; }
    // OpenHands keys the files set that actionhost does not use ("core.e2b_api_key", ...) and OpenHands'
    // sections that hold no runtime setting ("[llm]", "[agent]", ...), in file order: accepted so that
    // an OpenHands config.toml loads, worth one line to the user.
    const std::vector<std::string> &ignored_keys() const { return ignored_keys_; }
    // Of those, the [core] keys OpenHands' schema does not have either (a newer OpenHands', or a typo
    // too far from any key to be called one).
    const std::vector<std::string> &unknown_keys() const { return unknown_keys_; }

  private:
    void set_checked(const std::string &section, const std::string &key, const nlohmann::json &value,
                     const std::string &origin);
    nlohmann::json sections_;  // {"core":{...}, "sandbox":{...}, "<other>":{...}}
    std::map<std::string, std::string> sandbox_env_;
    std::set<std::string> explicit_keys_;
    std::vector<std::string> ignored_keys_;
    std::vector<std::string> unknown_keys_;
};

}  // namespace actionhost::client
