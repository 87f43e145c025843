#include "volumes.hpp"

#include <sstream>
#include <stdexcept>

namespace docker {

std::vector<std::string> parse_volumes(const std::string &spec) {
    std::vector<std::string> binds;
    std::stringstream list(spec);
    std::string item;
    while (std::getline(list, item, ',')) {
        while (!item.empty() && item.front() == ' ') item.erase(0, 1);
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (item.empty()) continue;
        std::vector<std::string> parts;
        std::stringstream p(item);
        std::string part;
        while (std::getline(p, part, ':')) parts.push_back(part);
        if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty() || parts[1][0] != '/')
            throw std::invalid_argument("sandbox.volumes: bad entry '" + item + "' (want host:/container[:mode])");
        std::string mode = parts.size() == 3 ? parts[2] : "rw";
        if (mode.find("overlay") != std::string::npos)
            throw std::invalid_argument("sandbox.volumes: overlay mounts are not supported: '" + item + "'");
        binds.push_back(parts[0] + ":" + parts[1] + ":" + mode);
    }
    return binds;
}

}  // namespace docker
