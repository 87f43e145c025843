#include "container_options.hpp"

#include <sstream>
#include <stdexcept>
#include <actionhost/common/json_write.hpp>

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
                             const std::optional<std::string> &deny, bool use_host_network) {
    for (const auto *list : {&allow, &deny}) {
        if (!*list || list->value().empty()) continue;
        const auto entries = nlohmann::json::parse(list->value(), nullptr, false);
        if (!entries.is_array() || !entries.empty())
            throw std::invalid_argument(std::string("sandbox.") + (list == &allow ? "allow_out" : "deny_out") +
                                        " is not enforced by the docker runtime (Docker has no egress filter for a container); "
                                        "use the sandbox runtime (-r sandbox) with network = \"internet\"");
    }
    const std::string m = mode.value_or("");
    if (m == "host" || m == "true") return {true, ""};
    if (m == "none" || m == "false")
        throw std::invalid_argument("sandbox.network = \"none\" cannot be had on the docker runtime: the client reaches the host through a port "
                                    "of Docker's bridge; use the sandbox runtime (-r sandbox), whose default it is");
    if (!m.empty() && m != "internet")
        throw std::invalid_argument("sandbox.network must be \"none\", \"internet\" or \"host\", not '" + m + "'");
    if (use_host_network) return {true, ""};
    return {false, m == "internet" ? "network = \"internet\" on the docker runtime is Docker's bridge: the internet, and also the machine's own "
                                     "addresses, which Docker cannot refuse (the sandbox runtime does)"
                                   : ""};
}

}  // namespace docker
