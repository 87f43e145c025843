// A module's manifest (its PluginRequirement): what it is and needs, read without running its code.
#pragma once

#include <actionhost/abi.h>
#include <actionhost/common/result.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actionhost/modules/action_schema.hpp"

namespace actionhost::modules {

enum class ModuleKind { Plugin, Runtime };

// A command-line option of the host that a plugin declares ("options" in its manifest), so the host
// accepts OpenHands' flags for a plugin without knowing the plugin:
//   "--no-enable-browser":   {"sets": {"KEY": "0"}, "description": "..."}   a flag that sets values
//   "--browsergym-eval-env": {"value_of": "KEY", "description": "..."}    a flag that takes one value
// What a flag sets is read with config_get (before --set and the environment).
struct OptionSpec {
    std::string flag;
    std::map<std::string, std::string> sets;
    std::string value_of;  // the key the flag's argument goes to ("" for a plain flag)
    std::string description;
};

// Something a plugin needs from the image it runs in ("needs" in manifest.json), e.g. python3 with
// ipykernel. Met by the first of `executables` that exists (an absolute path, a name on PATH, or a path
// below "$VAR/" taken from the configuration or environment) and, with `python_module`, can import it;
// else by `bundled` (a path in the install tree, e.g. the static bash of the bundle); or at once when one
// of `configured_by` is set (the plugin then uses, and reports on, what was configured).
struct ImageNeed {
    std::string name;         // short id; the path that meets it is published as config "needs.<name>"
    std::string description;  // "python3 with ipykernel"
    std::string package;      // what to install: "python3-ipykernel (Debian, Ubuntu) or `pip install ipykernel`"
    std::vector<std::string> executables;
    std::string python_module;
    std::string bundled;
    std::vector<std::string> configured_by;
};

// A directory of images a plugin writes as it works, e.g. a screenshot per page it visits.
struct ImageFeed {
    std::string dir;    // relative to the host's working directory, no ".." and not absolute
    std::string title;  // the heading the web view shows above the newest image
};

// The [sandbox] keys of a sandbox's network (the part after "sandbox."), as a runtime manifest's
// "network_keys" names them.
inline const std::vector<std::string> kNetworkKeys = {"network", "allow_out", "deny_out", "dns", "secrets", "upstream_ca_file"};

struct Manifest {
    std::string name;
    ModuleKind kind = ModuleKind::Plugin;
    std::string version;
    ah_version_t abi_version{0, 0, 0};
    std::string library;  // file name inside the manifest's directory
    std::string description;
    std::vector<std::string> provides;  // actions (plugins) or runtime names (runtimes)
    std::vector<ActionSpec> actions;    // the declarations of the actions (plugins; names in `provides`)
    std::vector<std::string> http_routes;  // exact HTTP paths a plugin answers (provides.http_routes)
    bool load_on_route = false;            // load the plugin on the first request to one of its routes
    bool policy = false;                   // provides.policy: a policy module (ext/policy.h), loaded only as one
    std::vector<std::string> requires_executables;
    // "requires": {"plugins": ...}: the plugins loaded first, by name, either a list of names (any
    // version) or an object of name → version range ({"jupyter": ">=1.2 <2"}, version_range.hpp).
    // `requires_plugins` keeps the names in the manifest's order; `plugin_ranges` the range of each
    // ("" = any version), checked when parsing so a bad range is refused with the manifest.
    std::vector<std::string> requires_plugins;
    std::map<std::string, std::string> plugin_ranges;
    std::vector<ImageNeed> needs;
    bool never_unload = false;
    // Runtimes only: "plugin_dirs": true — the backend shows its host the client machine's plugin
    // directories (the client's --plugin-dir) at the same paths.
    bool plugin_dirs = false;
    // Runtimes only: the [sandbox] network keys the backend takes — maps onto its platform, or refuses
    // itself with its platform's reason: "network_keys": true for all of kNetworkKeys, or a list of
    // some of them. The client refuses any other of them when set, rather than leave it silently ignored.
    std::vector<std::string> network_keys;
    // Runtimes only: "sandbox_keys" — the [sandbox] keys only a backend can honour (the client's list:
    // backend_sandbox_keys() in runtimes/client/src/config_schema.hpp) that this one does. The client
    // refuses any other of them when set, naming the backend, rather than leave it silently ignored.
    std::vector<std::string> sandbox_keys;
    bool autoload = false;  // "load": "always" — loaded at every host start, named or not
    // "isolation": "process" — the host runs the plugin in a child process of its own, behind the same
    // ABI (docs/plugin-guide.md, "Isolation"); "none", the default: in the host's process.
    bool isolate_process = false;
    std::vector<OptionSpec> options;
    // The plugin is off while every key of `disabled_when` has its value (from an option, --set or the
    // environment); its actions then answer an error observation with `unavailable_error`, which they
    // also answer when the plugin cannot be loaded (when set; else a 500 says why).
    std::map<std::string, std::string> disabled_when;
    std::string unavailable_error;
    // Images a person watching the sandbox may want to see ("provides.images"): directories relative to
    // the working directory where the plugin saves PNGs as it works (the web view shows the newest).
    std::vector<ImageFeed> image_feeds;
    // What the host answers on a route of the plugin while it is not loaded: path → {"status", "body"}.
    std::map<std::string, nlohmann::json> route_fallbacks;
    // Python the plugin offers other plugins' interpreters: directories (relative to the manifest's)
    // for their module path, and modules to import into every kernel (host keys actionhost.python_path,
    // actionhost.python_startup_imports).
    std::vector<std::string> python_path;
    std::vector<std::string> python_startup_imports;
    std::string dir;  // directory that holds manifest.json and the library
    std::string library_path() const { return dir + "/" + library; }
};

// Parses manifest.json text; `dir` is where it was found. Refuses anything malformed with a reason.
common::Result<Manifest> parse_manifest(std::string_view json_text, const std::string &dir);
// Reads and parses the manifest.json at `path` (its directory is the module's); an unreadable file is
// refused like a malformed one.
common::Result<Manifest> read_manifest(const std::string &path);

std::string to_string(const ah_version_t &v);
std::string to_string(ModuleKind kind);

}  // namespace actionhost::modules
