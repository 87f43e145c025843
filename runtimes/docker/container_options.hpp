// Container-create options of `[sandbox]` that map onto Engine API fields as OpenHands' DockerRuntime
// maps them through docker-py: GPUs (enable_gpu, cuda_visible_devices) and additional_networks.
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

}  // namespace docker
