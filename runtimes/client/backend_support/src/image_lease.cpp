#include "actionhost/runtime_support/image_lease.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <actionhost/common/json_io.hpp>
#include <nlohmann/json.hpp>

#include "actionhost/runtime_support/owned_dir.hpp"
#include "actionhost/runtime_support/process.hpp"

namespace actionhost::runtime_support {

namespace {

constexpr const char *kLeaseName = "image-lease.json";

// The store's path as one string however it was spelled (a relative or ./ path, a link to it).
std::string canonical_store(const std::string &root) {
    std::error_code ec;
    const auto c = std::filesystem::weakly_canonical(root, ec);
    return ec ? root : c.string();
}

}  // namespace

void write_image_lease(const std::string &owned_dir, const std::string &store_root, const std::string &manifest_digest) {
    const std::string path = owned_dir + "/" + kLeaseName;
    std::ofstream out(path, std::ios::trunc);
    out << common::dump_json(nlohmann::json{{"store", canonical_store(store_root)}, {"digest", manifest_digest}});
    if (!out.flush()) throw std::runtime_error("cannot write the image lease " + path);
}

std::vector<std::string> live_image_leases(const std::string &store_root) {
    const std::string store = canonical_store(store_root);
    std::vector<std::string> out;
    const std::string root = temp_root();
    DIR *dir = ::opendir(root.c_str());
    if (dir == nullptr) return out;
    for (dirent *e = ::readdir(dir); e != nullptr; e = ::readdir(dir)) {
        if (e->d_name[0] == '.') continue;
        const std::string owned = root + "/" + e->d_name;
        const auto lease = common::read_json_object_file(owned + "/" + kLeaseName);
        if (!lease || lease->value("store", std::string()) != store) continue;
        if (dir_owner(owned) != DirOwner::Alive) continue;
        out.push_back(lease->value("digest", std::string()));
    }
    ::closedir(dir);
    return out;
}

}  // namespace actionhost::runtime_support
