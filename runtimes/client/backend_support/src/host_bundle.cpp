#include "actionhost/runtime_support/host_bundle.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace actionhost::runtime_support {

HostBundle find_host_bundle(const std::string &install_dir) {
    for (const std::string &dir : {install_dir + "/dist", install_dir + "/lib/actionhost/bundle"}) {
        std::ifstream in(dir + "/actionhost/BUNDLE.json");
        if (!in) continue;
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (!j.is_object() || !j.contains("prefix") || !j["prefix"].is_string())
            throw std::runtime_error(dir + "/actionhost/BUNDLE.json is not a bundle description: rebuild the bundle "
                                           "(cmake --build --preset default --target bundle_tree)");
        return {dir, j["prefix"].get<std::string>(), j.value("version", "")};
    }
    throw std::runtime_error("no host bundle in " + install_dir + "/dist (or lib/actionhost/bundle): the host goes into containers "
                             "as the self-contained bundle; build it with `cmake --build --preset default --target bundle_tree` "
                             "(part of a full build) or ./scripts/bundle");
}

}  // namespace actionhost::runtime_support
