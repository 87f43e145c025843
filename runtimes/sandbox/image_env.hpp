// An image's own environment (its config's Env) for the host the sandbox runs: never the environment of
// ah-sandbox-init, which runs on the machine as the caller (root) before any namespace exists — an
// image's LD_PRELOAD there ran the image's code as the machine's root. The variables go in a file of the
// run directory (0600: an image may carry tokens, and ps shows command lines to everyone), which
// ah-sandbox-init applies only in the process that execs the host, inside the sandbox.
//
// Even there, what steers the loader, libc or the host's secrets is not the image's to set: LD_*,
// GCONV_PATH, GLIBC_TUNABLES, MALLOC_*, LOCPATH, NLSPATH, HOSTALIASES, RESOLV_HOST_CONF, RES_OPTIONS and
// SESSION_API_KEY are refused (the host is the bundle's, with a loader of its own; the image's programs
// still get the image's environment from their own start files). A variable the configuration sets wins.
//
// Threads: any.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace actionhost::sandbox_runtime {

struct ImageEnv {
    std::vector<std::string> kept;     // "NAME=value", in the image's order
    std::vector<std::string> refused;  // names (or entries) left out, to tell the user
};

// The image's `env` ("NAME=value" strings) minus refused names, malformed entries and names
// `configured` sets.
ImageEnv filter_image_env(const nlohmann::json &env, const std::map<std::string, std::string> &configured);

// Writes `vars` NUL-separated into a new file `path` (0600, not following links). Throws
// std::runtime_error.
void write_image_env(const std::string &path, const std::vector<std::string> &vars);

}  // namespace actionhost::sandbox_runtime
