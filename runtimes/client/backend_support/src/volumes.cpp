#include "actionhost/runtime_support/volumes.hpp"

#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace actionhost::runtime_support {

namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(0, 1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    return s;
}

[[noreturn]] void refuse(const std::string &entry, const std::string &why) {
    throw std::invalid_argument("sandbox.volumes: '" + entry + "': " + why);
}

bool inside(const fs::path &path, const char *dir) {
    const fs::path rel = path.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::vector<VolumeSpec> parse_volumes(const std::string &spec) {
    std::vector<VolumeSpec> out;
    std::stringstream list(spec);
    std::string item;
    while (std::getline(list, item, ',')) {
        item = trimmed(item);
        if (item.empty()) continue;
        std::vector<std::string> parts;
        std::stringstream p(item);
        std::string part;
        while (std::getline(p, part, ':')) parts.push_back(part);
        if (!item.empty() && item.back() == ':') parts.push_back("");
        if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty() || (parts.size() == 3 && parts[2].empty()))
            refuse(item, "want host:/container[:ro|rw]");
        if (parts[1][0] != '/') refuse(item, "the container path must be absolute");
        VolumeSpec v{parts[0], parts[1], parts.size() == 3 ? parts[2] : "rw"};
        if (v.mode.find("overlay") != std::string::npos) refuse(item, "overlay mounts are not supported");
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<VolumeSpec> check_bind_volumes(std::vector<VolumeSpec> volumes) {
    std::set<std::string> targets;
    for (auto &v : volumes) {
        const std::string entry = v.host + ":" + v.container + ":" + v.mode;
        if (v.mode != "ro" && v.mode != "rw") refuse(entry, "the mode must be ro or rw, not '" + v.mode + "'");
        if (v.host[0] != '/') refuse(entry, "the host path must be absolute (named volumes are docker's)");
        std::error_code ec;
        const fs::path host = fs::canonical(v.host, ec);
        if (ec) refuse(entry, "the host path " + v.host + " does not exist (" + ec.message() + ")");
        const auto status = fs::status(host, ec);
        if (!fs::is_directory(status) && !fs::is_regular_file(status))
            refuse(entry, "the host path " + v.host + " is neither a directory nor a regular file");
        const fs::path container = fs::path(v.container).lexically_normal();
        std::string normal = container.string();
        while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
        if (normal == "/") refuse(entry, "a volume cannot be the sandbox's root");
        for (const char *own : {"/proc", "/sys", "/dev"})
            if (normal == own || inside(container, own))
                refuse(entry, std::string("the container path is inside ") + own + ", which is the sandbox's own");
        if (!targets.insert(normal).second) refuse(entry, "another volume is mounted at " + normal);
        v.host = host.string();
        v.container = normal;
    }
    return volumes;
}

}  // namespace actionhost::runtime_support
