#include "build_args.hpp"

#include <actionhost/runtime_support/url_encode.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <actionhost/common/json_write.hpp>

namespace docker {

using actionhost::runtime_support::url_encode;

std::string build_query_from_args(const std::vector<std::string> &args) {
    // flag → the /build query parameter it sets directly (value as given).
    static const std::map<std::string, std::string> plain = {
        {"--network", "networkmode"}, {"--target", "target"}, {"--platform", "platform"}, {"--shm-size", "shmsize"},
        {"--cpuset-cpus", "cpusetcpus"}, {"--memory", "memory"}, {"--cpu-shares", "cpushares"}};
    nlohmann::json buildargs = nlohmann::json::object(), labels = nlohmann::json::object();
    std::vector<std::string> hosts;
    std::string query;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i], value;
        const bool takes_value = flag != "--no-cache" && flag != "--pull" && flag != "-q" && flag != "--quiet";
        if (const size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
        } else if (takes_value) {
            if (i + 1 >= args.size()) throw std::invalid_argument("sandbox.runtime_extra_build_args: " + flag + " needs a value");
            value = args[++i];
        }
        if (flag == "--build-arg") {
            const size_t eq = value.find('=');
            if (eq == std::string::npos || eq == 0)
                throw std::invalid_argument("sandbox.runtime_extra_build_args: --build-arg wants NAME=VALUE, got '" + value + "'");
            buildargs[value.substr(0, eq)] = value.substr(eq + 1);
        } else if (flag == "--label") {
            const size_t eq = value.find('=');
            labels[value.substr(0, eq)] = eq == std::string::npos ? "" : value.substr(eq + 1);
        } else if (flag == "--add-host") {
            hosts.push_back(value);
        } else if (flag == "--no-cache") {
            query += "&nocache=1";
        } else if (flag == "--pull") {
            query += "&pull=1";
        } else if (flag == "-q" || flag == "--quiet") {
            query += "&q=1";
        } else if (auto it = plain.find(flag); it != plain.end()) {
            query += "&" + it->second + "=" + url_encode(value);
        } else {
            throw std::invalid_argument("sandbox.runtime_extra_build_args: " + flag +
                                        " has no Docker Engine API equivalent (supported: --build-arg, --label, --add-host, "
                                        "--network, --target, --platform, --shm-size, --cpuset-cpus, --cpu-shares, --memory, "
                                        "--no-cache, --pull, --quiet)");
        }
    }
    if (!buildargs.empty()) query += "&buildargs=" + url_encode(actionhost::common::dump_json(buildargs));
    if (!labels.empty()) query += "&labels=" + url_encode(actionhost::common::dump_json(labels));
    for (const auto &h : hosts) query += "&extrahosts=" + url_encode(h);  // repeated, as the docker CLI sends them
    return query;
}

}  // namespace docker
