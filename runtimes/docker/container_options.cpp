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

}  // namespace docker
