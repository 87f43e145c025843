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

// Throws std::runtime_error saying how to build the bundle when there is none.
HostBundle find_host_bundle(const std::string &install_dir);

}  // namespace actionhost::runtime_support
