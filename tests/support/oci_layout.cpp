#include "support/oci_layout.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <actionhost/common/digest.hpp>

#include "support/run_process.hpp"

namespace actionhost::testing {

namespace fs = std::filesystem;
using nlohmann::json;

std::string sha256_of_file(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    common::Digest sha = common::Digest::sha256();
    char buf[1 << 16];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) sha.update(buf, static_cast<size_t>(n));
    ::close(fd);
    return sha.hex();
}

std::string tar_directory(const std::string &root, const std::string &tar) {
    auto r = run_process({"tar", "--numeric-owner", "--xattrs", "-C", root, "-cf", tar, "."}, 600);
    return r.exit_code == 0 ? "" : "tar failed: " + r.output;
}

namespace {

// Puts `file` into the layout's blobs; returns its "sha256:<hex>" and size.
std::pair<std::string, int64_t> add_blob(const std::string &dir, const std::string &file) {
    const std::string hex = sha256_of_file(file);
    fs::create_directories(dir + "/blobs/sha256");
    fs::copy_file(file, dir + "/blobs/sha256/" + hex, fs::copy_options::overwrite_existing);
    return {"sha256:" + hex, static_cast<int64_t>(fs::file_size(file))};
}

std::pair<std::string, int64_t> add_document(const std::string &dir, const json &document) {
    const std::string path = dir + "/document.tmp";
    std::ofstream(path) << document.dump();
    auto blob = add_blob(dir, path);
    fs::remove(path);
    return blob;
}

}  // namespace

std::string write_oci_layout(const std::string &dir, const std::string &tag, const std::vector<OciLayer> &layers,
                             const std::vector<std::string> &env) {
    fs::create_directories(dir);
    json diff_ids = json::array(), layer_descriptors = json::array();
    for (size_t i = 0; i < layers.size(); ++i) {
        const std::string diff = sha256_of_file(layers[i].tar);
        if (diff.empty()) return "cannot read " + layers[i].tar;
        diff_ids.push_back("sha256:" + diff);
        std::string stored = layers[i].tar;
        if (layers[i].gzip) {
            stored = dir + "/layer" + std::to_string(i) + ".tar.gz";
            auto r = run_process({"sh", "-c", "gzip -c < '" + layers[i].tar + "' > '" + stored + "'"}, 600);
            if (r.exit_code != 0) return "gzip failed: " + r.output;
        }
        const auto [digest, size] = add_blob(dir, stored);
        if (layers[i].gzip) fs::remove(stored);
        layer_descriptors.push_back({{"mediaType", layers[i].gzip ? "application/vnd.oci.image.layer.v1.tar+gzip"
                                                                  : "application/vnd.oci.image.layer.v1.tar"},
                                     {"digest", digest},
                                     {"size", size}});
    }
    const json config = {{"architecture", "amd64"}, {"os", "linux"}, {"config", {{"Env", env}}},
                         {"rootfs", {{"type", "layers"}, {"diff_ids", diff_ids}}}};
    const auto [config_digest, config_size] = add_document(dir, config);
    const json manifest = {{"schemaVersion", 2},
                           {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                           {"config", {{"mediaType", "application/vnd.oci.image.config.v1+json"}, {"digest", config_digest}, {"size", config_size}}},
                           {"layers", layer_descriptors}};
    const auto [manifest_digest, manifest_size] = add_document(dir, manifest);
    json index = {{"schemaVersion", 2}, {"manifests", json::array()}};
    if (fs::exists(dir + "/index.json")) index = json::parse(std::ifstream(dir + "/index.json"), nullptr, false);
    index["manifests"].push_back({{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                                  {"digest", manifest_digest},
                                  {"size", manifest_size},
                                  {"annotations", {{"org.opencontainers.image.ref.name", tag}}}});
    std::ofstream(dir + "/index.json") << index.dump();
    std::ofstream(dir + "/oci-layout") << R"({"imageLayoutVersion":"1.0.0"})";
    return "";
}

std::string skopeo_copy(const std::string &from, const std::string &to, const std::string &creds) {
    std::vector<std::string> argv = {"skopeo", "--insecure-policy", "copy", "--quiet", "--dest-tls-verify=false", "--src-tls-verify=false"};
    if (!creds.empty()) argv.insert(argv.end(), {"--dest-creds", creds});
    argv.insert(argv.end(), {from, to});
    auto r = run_process(argv, 600);
    return r.exit_code == 0 ? "" : "skopeo copy " + from + " " + to + " failed: " + r.output;
}

}  // namespace actionhost::testing
