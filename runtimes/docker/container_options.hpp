// Container-create options of `[sandbox]` that map onto Engine API fields as OpenHands' DockerRuntime
// maps them through docker-py: GPUs (enable_gpu, cuda_visible_devices) and additional_networks; and
// our own network keys (network, allow_out, deny_out, dns) as far as Docker can have them.
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

// `sandbox.network`, the egress lists and `sandbox.dns` on Docker, as far as Docker can have them:
//   - "host" (or true, or use_host_network) is Docker's host network;
//   - unset and "internet" are its bridge, the client reaching the host through a published port: the
//     internet, but also the machine's own addresses, which Docker cannot refuse (`note` says so);
//   - "none" (or false) is kInternalNetwork, a Docker network with no route off its bridge: nothing
//     beyond this machine, but again the machine's own addresses (the note says so); Docker publishes no
//     port from such a network, so the client reaches the host at the container's address on it;
//   - `dns` is HostConfig.Dns (docker run --dns);
//   - any allow_out/deny_out entry is refused: Docker has no egress filter for a container.
// `mode`, `allow`, `deny`, `dns` are the configuration's texts (lists as JSON). Throws
// std::invalid_argument with the key, the reason and what to use instead.
enum class DockerNetworkKind { Bridge, Host, Internal };
struct DockerNetwork {
    DockerNetworkKind kind = DockerNetworkKind::Bridge;
    std::vector<std::string> dns;  // HostConfig.Dns
    std::string note;              // a warning for the user, or ""
};
DockerNetwork docker_network(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                             const std::optional<std::string> &deny, const std::optional<std::string> &dns, bool use_host_network);

// The network "none" puts every sandbox on: one for all (Docker's address pools hold some 30 bridge
// networks, so one per sandbox would cap a fleet there), with inter-container traffic off, so sandboxes
// on it cannot reach one another either.
inline constexpr const char *kInternalNetwork = "actionhost-internal";
// Its POST /networks/create body: a bridge, Internal, enable_icc false, labelled as ours.
nlohmann::json internal_network_request();
// Why an existing network of that name cannot be used ("" when it can): made by someone else, not
// Internal, or with inter-container traffic on. `network` is its GET /networks/{name} answer.
std::string internal_network_problem(const nlohmann::json &network);

// Why "none" cannot be had with these settings ("" when it can): the client reaches the host at the
// container's address on the internal network's bridge, which only the engine's own machine routes to —
// not a client talking to a remote engine (`docker_host` tcp://, ssh://), nor one that reaches the engine's
// machine by an address of its own (DOCKER_HOST_ADDR, a client in a container); and another network
// (additional_networks) would give the container a way out, while local_runtime_url and a
// runtime_binding_address other than the default only concern published ports, of which there are none.
std::string internal_network_refusal(const std::string &docker_host, const std::string &docker_host_addr, bool additional_networks,
                                     const std::string &local_runtime_url, const std::string &binding_address);

}  // namespace docker
