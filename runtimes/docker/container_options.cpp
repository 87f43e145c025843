#include "container_options.hpp"

#include <sstream>
#include <stdexcept>
#include <actionhost/common/json_write.hpp>
#include <actionhost/runtime_support/network_keys.hpp>

namespace docker {

using nlohmann::json;

std::optional<json> gpu_device_requests(bool enable_gpu, const std::optional<std::string> &cuda_visible_devices) {
    if (!enable_gpu) return std::nullopt;
    json request = {{"Driver", ""}, {"Capabilities", json::array({json::array({"gpu"})})}, {"Options", json::object()}};
    if (!cuda_visible_devices || cuda_visible_devices->empty()) {
        request["Count"] = -1;
    } else {
        json ids = json::array();
        std::stringstream list(*cuda_visible_devices);
        for (std::string id; std::getline(list, id, ',');) ids.push_back(id);
        request["DeviceIDs"] = ids;
    }
    return json::array({request});
}

std::vector<std::string> network_names(const std::optional<std::string> &list_json) {
    std::vector<std::string> names;
    if (!list_json || list_json->empty() || *list_json == "null") return names;
    json list = json::parse(*list_json, nullptr, false);
    if (!list.is_array()) throw std::invalid_argument("sandbox.additional_networks must be a list of network names");
    for (const auto &n : list) {
        if (!n.is_string() || n.get<std::string>().empty())
            throw std::invalid_argument("sandbox.additional_networks must be a list of network names, not " + actionhost::common::dump_json(n));
        names.push_back(n.get<std::string>());
    }
    return names;
}

DockerNetwork docker_network(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                             const std::optional<std::string> &deny, const std::optional<std::string> &dns, bool use_host_network) {
    namespace rs = actionhost::runtime_support;
    const rs::NetworkKeys keys = rs::read_network_keys(mode, allow, deny, dns);
    for (const auto &[key, list] : {std::pair<const char *, const std::vector<std::string> *>{"sandbox.allow_out", &keys.allow},
                                    {"sandbox.deny_out", &keys.deny}})
        if (!list->empty())
            throw std::invalid_argument(std::string(key) +
                                        " is not enforced by the docker runtime: Docker has no egress filter for a container (it would "
                                        "take firewall rules of ours in the machine's own tables, shared by every container); "
                                        "use the sandbox runtime (-r sandbox) with network = \"internet\"");
    DockerNetwork n;
    n.dns = rs::dns_addresses(keys.dns);
    // use_host_network is OpenHands' key for the same thing as "host": with "none" or "internet" it
    // contradicts the network asked for, which must not be settled silently either way.
    if (use_host_network && (keys.mode == rs::NetworkMode::None || keys.mode == rs::NetworkMode::Internet))
        throw std::invalid_argument(std::string("sandbox.use_host_network = true contradicts sandbox.network = \"") +
                                    (keys.mode == rs::NetworkMode::None ? "none" : "internet") + "\"; unset one of them");
    if (keys.mode == rs::NetworkMode::Host || use_host_network) {
        n.kind = DockerNetworkKind::Host;
        return n;
    }
    if (keys.mode == rs::NetworkMode::None) {
        n.kind = DockerNetworkKind::Internal;
        n.note = "network = \"none\" on the docker runtime is Docker's internal network " + std::string(kInternalNetwork) +
                 ": nothing beyond this machine, but the machine's own addresses stay reachable from it, which Docker cannot "
                 "refuse (the sandbox runtime does); its ports are reached at the container's address on that network, none is published";
        return n;
    }
    if (keys.mode == rs::NetworkMode::Internet)
        n.note = "network = \"internet\" on the docker runtime is Docker's bridge: the internet, and also the machine's own "
                 "addresses, which Docker cannot refuse (the sandbox runtime does)";
    return n;
}

json internal_network_request() {
    return {{"Name", kInternalNetwork},
            {"Driver", "bridge"},
            {"Internal", true},
            {"CheckDuplicate", true},
            {"Options", {{"com.docker.network.bridge.enable_icc", "false"}}},
            {"Labels", {{"actionhost.network", "internal"}}}};
}

std::string internal_network_problem(const json &network) {
    const std::string name = kInternalNetwork;
    if (!network.is_object()) return "the engine answered no network object for " + name;
    if (network.value("Labels", json::object()).value("actionhost.network", "") != "internal")
        return "a Docker network named " + name + " exists that actionhost did not make (no label actionhost.network=internal)";
    if (!network.value("Internal", false)) return "Docker network " + name + " is not internal";
    const json options = network.value("Options", json::object());
    if (options.value("com.docker.network.bridge.enable_icc", "true") != "false")
        return "Docker network " + name + " lets its containers reach one another (enable_icc is not false)";
    return "";
}

std::string internal_network_refusal(const std::string &docker_host, const std::string &docker_host_addr, bool additional_networks,
                                     const std::string &local_runtime_url, const std::string &binding_address) {
    const std::string why = "sandbox.network = \"none\" on the docker runtime: ";
    if (!docker_host.empty() && docker_host.rfind("unix://", 0) != 0 && docker_host.front() != '/')
        return why + "the client reaches the host at the container's address on an internal Docker network, which only the engine's "
                     "own machine can route to, and DOCKER_HOST is " + docker_host + "; run the client on the engine's machine, or use network = \"internet\"";
    if (!docker_host_addr.empty())
        return why + "DOCKER_HOST_ADDR is set (the client reaches the engine's machine by an address of its own), but an internal "
                     "Docker network publishes no port there; unset it, or use network = \"internet\"";
    if (additional_networks)
        return why + "sandbox.additional_networks would give the container a way out; use one or the other";
    if (local_runtime_url != "http://localhost" && !local_runtime_url.empty())
        return why + "sandbox.local_runtime_url (" + local_runtime_url + ") is where published ports are reached, and none is published: "
                     "the client reaches the host at the container's address; unset it";
    if (binding_address != "127.0.0.1" && !binding_address.empty())
        return why + "sandbox.runtime_binding_address (" + binding_address + ") is where ports are published, and none is published "
                     "from an internal network; unset it";
    return "";
}

}  // namespace docker
