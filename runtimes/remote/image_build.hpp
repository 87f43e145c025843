// The runtime image when sandbox.runtime_container_image is unset (OpenHands' remote builder, in our terms): repo
// `<registry_prefix>/runtime`, one tag `ah_v<version>_<hash of the bundle's files>`; when the API does
// not have it, a build context (a Dockerfile `FROM <base_container_image>` + `COPY actionhost
// /openhands/actionhost` + `COPY micromamba /openhands/micromamba`, and the host bundle: any base image
// works) is sent to POST /build as the base64 text of a tar.gz and GET /build_status is polled until
// SUCCESS (≤ 30 min).
#pragma once

#include <functional>
#include <string>

#include "remote_api.hpp"

namespace remote {

struct BuildSettings {
    std::string bundle_dir;        // the host bundle (runtime_support/host_bundle.hpp): actionhost/, micromamba/
    std::string base_image;        // sandbox.base_container_image
    std::string version;           // actionhost version, part of the tag
    double poll_interval_s = 30;   // OpenHands polls every 30 s
    double timeout_s = 30 * 60;
    bool force_rebuild = false;    // sandbox.force_rebuild_runtime
};

// Where the host sits in every image this backend uses or builds.
inline const char *kInstallInImage = "/openhands/actionhost";

// Returns the image to start (building it when missing). `progress` gets status lines. Throws
// RemoteApiError / std::runtime_error with the reason.
std::string ensure_runtime_image(RemoteApi &api, const BuildSettings &settings,
                                 const std::function<void(const std::string &)> &progress);

}  // namespace remote
