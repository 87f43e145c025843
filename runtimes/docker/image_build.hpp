// docker_install_mode = "image": OpenHands' runtime image scheme through the Engine API's POST /build,
// with a build context made in memory (tar_context.hpp) holding the host bundle (bundle/assemble: the
// host, its plugins and every library they load, so any base image works). Three tags in `<repo>`:
//   lock      oh_v<ver>_<h1>        h1 = hash of the base image (+ "False" with the browser off), of what
//                                   the host needs besides its code (its version and install path) and
//                                   of runtime_extra_deps
//   source    <lock>_<h2>           h2 = hash of the bundle tree (install_hash.hpp; cached by file
//                                   metadata); the image a runtime runs
//   versioned oh_v<ver>_<base image, '/'→_s_, ':'→_t_, lower-case, last 96 characters>
// Source exists → reused. Else built FROM lock (code copied in), else FROM versioned, else FROM the
// base image. New tags: source and lock, plus versioned when built from the base image.
// The Dockerfile: FROM, `RUN <runtime_extra_deps>` (not when FROM the lock image, which has them),
// COPY of the bundle to /openhands/actionhost and of OpenHands' start-command shim to
// /openhands/micromamba (so OpenHands itself can run the image). runtime_extra_build_args and platform
// become /build's query parameters (build_args.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine_api.hpp"

namespace docker {

// OpenHands' truncate_hash: a hex digest as base 36 (0-9a-z), least significant digit first, at most
// 16 characters.
std::string truncate_hash(const std::string &hex_digest);
// MD5 of `text`, hex.
std::string md5_hex(const std::string &text);
std::string versioned_tag(const std::string &version, const std::string &base_image);

struct ImagePlan {
    std::string repo;             // $OH_RUNTIME_RUNTIME_IMAGE_REPO or "actionhost/runtime"
    std::string version;          // actionhost's
    std::string base_image;
    bool browser_enabled = true;
    std::string bundle_dir;       // the bundle tree: <dir>/actionhost (→ install_path), <dir>/micromamba
    std::string install_path;     // e.g. /openhands/actionhost (the bundle's prefix)
    bool force_rebuild = false;   // sandbox.force_rebuild_runtime
    std::string extra_deps;       // sandbox.runtime_extra_deps: a RUN step
    std::string build_query;      // extra /build query parameters (runtime_extra_build_args, platform)
    // Called with the base image before a build FROM it (the docker backend pulls it when missing).
    std::function<void(const std::string &)> ensure_base;
};

struct ImageTags {
    std::string lock, source, versioned;  // full names: <repo>:<tag>
};
ImageTags image_tags(const ImagePlan &plan);

struct BuildOutcome {
    std::string image;            // <repo>:<source tag>
    std::string built_from;       // "" (reused), "lock", "versioned" or "base"
    std::vector<std::string> tags_added;
};

// Makes sure the source image exists, building it when needed. `progress` gets one line per step, as
// the engine streams them.
// Throws std::runtime_error with the engine's error text.
BuildOutcome ensure_runtime_image(Engine &engine, const ImagePlan &plan,
                                  const std::function<void(const std::string &)> &progress);

}  // namespace docker
