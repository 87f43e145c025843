// The self-contained host bundle (bundle/assemble) that container and cloud backends put into images:
// <dir>/actionhost (the host, its plugins and every library they load; runs from `prefix`, normally
// /openhands/actionhost) and <dir>/micromamba (OpenHands' start-command shim). Found beside the client's
// install tree: <install>/dist in a build tree, <install>/lib/actionhost/bundle after `cmake --install`.
#pragma once

#include <string>

namespace actionhost::runtime_support {

struct HostBundle {
    std::string dir;      // holds actionhost/ and micromamba/
    std::string prefix;   // where the host must sit in an image (its ELF interpreter path points there)
    std::string version;
    std::string tree() const { return dir + "/actionhost"; }
};

// Where an image's own plugins live: `ahctl --image BASE plugin install REF --as NAME` puts them there, in
// a layer of its own; a host running from the bundle in an image searches it after the bundle's own
// plugins (so an image cannot replace bash or the file editor, only add to them).
inline constexpr const char *kImagePluginDir = "/usr/local/lib/actionhost/plugins";

// Throws std::runtime_error saying how to build the bundle when there is none.
HostBundle find_host_bundle(const std::string &install_dir);

}  // namespace actionhost::runtime_support
