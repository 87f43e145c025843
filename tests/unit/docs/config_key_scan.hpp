// Finds the configuration keys the source tree reads and the keys docs/configuration.md documents, and
// compares them, so that a key added, renamed or removed in the code cannot go unnoticed in the docs.
//
// A key is "read" where a string literal shaped like a key (ENV_STYLE, or section.key as config.toml
// and the host's computed keys spell it) is an argument of one of the calls the project reads
// configuration with: getenv/secure_getenv, config_get, config, config_string/bool/number/int, get,
// get_text/string/bool/number, is_explicit, setting/size_setting/seconds_setting, credential, and find
// on an environment map. `config_string(vendor + ".port", ...)` reads "<vendor>.port". Plugin manifests
// declare keys too (an option's "sets" and "value_of", "disabled_when").
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace actionhost::testing::config_keys {

// `text` without its // and /* */ comments (string, character and raw string literals kept).
std::string without_comments(const std::string &text);

// The keys read in one C/C++ source text, by the call forms above.
std::set<std::string> keys_read_in(const std::string &text);

// Every string literal of a C/C++ source text (comments ignored).
std::set<std::string> string_literals(const std::string &text);

// The keys a plugin or runtime manifest declares.
std::set<std::string> manifest_keys(const nlohmann::json &manifest);

struct DocumentedKey {
    std::string key;
    std::string heading;  // the nearest heading above the table row ("" before any)
    int line = 0;         // 1-based
};

// The keys a markdown document lists: every `backticked` key-shaped name in the first cell of a table row.
std::vector<DocumentedKey> documented_keys(const std::string &markdown);

// What the source tree says about configuration.
struct Inventory {
    std::map<std::string, std::set<std::string>> read;  // key → files (relative to the root) that read it
    std::map<std::string, std::string> declared;        // key → the plugin whose manifest declares it
    std::set<std::string> schema;                       // config.toml keys of the client's schema ("core.runtime")
    std::set<std::string> literals;                     // every string literal of the scanned sources
    size_t files_scanned = 0;
};

// Scans host/, plugins/, runtimes/, common/ and sdk/ under `root`: C/C++ sources for reads and
// literals, manifest.json files for declared keys. The schema is the caller's to fill in.
Inventory scan_tree(const std::filesystem::path &root);

// One message per key the code reads, declares or has in its schema that `doc` does not list, per key
// `doc` lists that nothing in the code knows any more, and per declared key not listed under a heading
// naming its plugin. Empty when the document and the code agree.
std::vector<std::string> doc_problems(const Inventory &inv, const std::string &doc);

}  // namespace actionhost::testing::config_keys
