// Container-create options of `[sandbox]` that map onto Engine API fields as OpenHands' DockerRuntime
// maps them through docker-py: GPUs (enable_gpu, cuda_visible_devices) and additional_networks; and
// our own network keys (network, allow_out, deny_out) as far as Docker can have them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace docker {

// HostConfig.DeviceRequests for `enable_gpu`: every GPU (Count -1), or the ids of `cuda_visible_devices`
// ("0,2"), each with the capability "gpu"; nullopt when GPUs are off. The engine refuses to start such a
// container without a GPU runtime (e.g. nvidia-container-toolkit), with its own message.
std::optional<nlohmann::json> gpu_device_requests(bool enable_gpu, const std::optional<std::string> &cuda_visible_devices);

// `additional_networks` as the configuration gives it (a JSON list of names): the names, in order.
// Throws std::invalid_argument for anything but a list of non-empty strings.
std::vector<std::string> network_names(const std::optional<std::string> &list_json);

// `sandbox.network` and the egress lists on Docker, whose containers the client reaches through a
// published port of the bridge: "host" (or true, or use_host_network) is Docker's host network; unset
// and "internet" are its bridge — the internet, but also the machine's own addresses, which Docker
// cannot refuse (`note` says so, for a warning); "none" (or false) and any allow_out/deny_out entry
// cannot be had here: std::invalid_argument with the reason and what to use instead. `mode`, `allow`
// and `deny` are the configuration's texts (lists as JSON).
struct DockerNetwork {
    bool host = false;
    std::string note;
};
DockerNetwork docker_network(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                             const std::optional<std::string> &deny, bool use_host_network);

}  // namespace docker
