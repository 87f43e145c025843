// `[sandbox] volumes` (OpenHands' key, SANDBOX_VOLUMES): "host:/container[:mode]" entries separated by
// commas, as OpenHands' DockerRuntime reads it. The one parser of the spec: the docker backend turns the
// entries into Docker binds (a non-absolute host part is a named volume there), the sandbox backend into
// bind mounts (check_bind_volumes). A backend whose manifest does not say "volumes": true never sees the
// key: the client refuses it, naming the backend (runtimes/client/src/runtime.cpp).
#pragma once

#include <string>
#include <vector>

namespace actionhost::runtime_support {

struct VolumeSpec {
    std::string host;       // as given: an absolute path, or (docker) a named volume
    std::string container;  // absolute
    std::string mode;       // "rw" when not given
    bool read_only() const { return mode == "ro"; }
};

// The entries of `spec` in order (blank entries skipped, spaces around an entry trimmed). Throws
// std::invalid_argument naming the entry: not host:/container[:mode], an empty part, a container path
// that is not absolute, or an overlay mode (OpenHands' "overlay" copies need a writable layer of their
// own, which no backend here makes).
std::vector<VolumeSpec> parse_volumes(const std::string &spec);

// The checks of a backend that bind-mounts the machine's own paths (the sandbox backend): the host part
// an absolute path of an existing directory or regular file (resolved, returned in place), the mode "ro"
// or "rw", the container path absolute, normalised, not "/" and not inside /proc, /sys or /dev (the
// sandbox's own views), no two entries at the same container path. Throws std::invalid_argument naming
// the entry, before anything has started.
std::vector<VolumeSpec> check_bind_volumes(std::vector<VolumeSpec> volumes);

}  // namespace actionhost::runtime_support
