#include "install_hash.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include <actionhost/common/digest.hpp>
#include <actionhost/common/json_write.hpp>

namespace docker {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kMaxCachedTrees = 16;
constexpr auto kUntrustedAge = std::chrono::seconds(2);

std::vector<fs::path> tree_files(const std::string &install_dir) {
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(install_dir); it != fs::recursive_directory_iterator(); ++it) {
        const std::string name = it->path().filename().string();
        if (it->is_directory() && (name == "__pycache__" || (!name.empty() && name[0] == '.'))) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file() && it->path().extension() != ".pyc") files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string hash_files(const std::string &install_dir, const std::vector<fs::path> &files) {
    actionhost::common::Digest m = actionhost::common::Digest::md5();
    std::vector<char> buffer(1 << 20);
    for (const auto &f : files) {
        m.update(fs::relative(f, install_dir).string());
        m.update(std::string(1, '\0'));
        std::ifstream in(f, std::ios::binary);
        while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
            m.update(buffer.data(), static_cast<size_t>(in.gcount()));
    }
    return m.hex();
}

// Path, size, mtime and inode of every file; false when a file is too fresh to trust.
bool metadata_signature(const std::string &install_dir, const std::vector<fs::path> &files, std::string &out) {
    actionhost::common::Digest m = actionhost::common::Digest::md5();
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    bool trusted = true;
    for (const auto &f : files) {
        struct stat st {};
        if (::stat(f.c_str(), &st) != 0) return false;
        const auto mtime = std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec);
        if (now - mtime < kUntrustedAge) trusted = false;
        m.update(fs::relative(f, install_dir).string() + '\0' + std::to_string(st.st_size) + ' ' +
                 std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec) + ' ' +
                 std::to_string(st.st_ino) + ' ' + std::to_string(st.st_dev) + '\n');
    }
    out = m.hex();
    return trusted;
}

std::string default_cache_path() {
    if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/actionhost/install-tree-hashes.json";
    if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/actionhost/install-tree-hashes.json";
    return "";
}

json read_cache(const std::string &path) {
    std::ifstream in(path);
    if (!in) return json::object();
    json j = json::parse(in, nullptr, false);
    return j.is_object() ? j : json::object();
}

void write_cache(const std::string &path, const json &cache) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) return;
        out << actionhost::common::dump_json(cache);
        if (!out) {
            fs::remove(tmp, ec);
            return;
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::string install_tree_hash(const std::string &install_dir) { return hash_files(install_dir, tree_files(install_dir)); }

std::string cached_install_tree_hash(const std::string &install_dir, const std::string &cache_path) {
    const std::vector<fs::path> files = tree_files(install_dir);
    const std::string path = cache_path.empty() ? default_cache_path() : cache_path;
    std::string signature;
    const bool trusted = metadata_signature(install_dir, files, signature);
    if (path.empty() || !trusted) return hash_files(install_dir, files);

    std::error_code ec;
    const std::string key = fs::weakly_canonical(install_dir, ec).string();
    json cache = read_cache(path);
    if (auto it = cache.find(key); it != cache.end() && it->is_object() && it->value("signature", "") == signature &&
                                   it->contains("hash") && (*it)["hash"].is_string())
        return (*it)["hash"].get<std::string>();

    const std::string digest = hash_files(install_dir, files);
    cache[key] = {{"signature", signature}, {"hash", digest},
                  {"at", std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()}};
    while (cache.size() > kMaxCachedTrees) {  // forget the oldest install trees
        auto oldest = cache.begin();
        for (auto it = cache.begin(); it != cache.end(); ++it)
            if (it->is_object() && it->value("at", 0LL) < oldest->value("at", 0LL)) oldest = it;
        cache.erase(oldest);
    }
    write_cache(path, cache);
    return digest;
}

}  // namespace docker
