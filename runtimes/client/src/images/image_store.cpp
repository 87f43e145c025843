#include "images/image_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/json_io.hpp>
#include <actionhost/runtime_support/image_reference.hpp>
#include <actionhost/runtime_support/remove_tree.hpp>

#include "images/image_sources.hpp"
#include "images/layer_writer.hpp"
#include "images/registry_client.hpp"

namespace actionhost::client::images {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Held while the store changes: two starts of one image unpack it once.
class StoreLock {
  public:
    explicit StoreLock(const std::string &root) : fd_(::open((root + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
        if (!fd_ || ::flock(fd_.get(), LOCK_EX) != 0) throw std::runtime_error("cannot lock the image store " + root + ": " + std::strerror(errno));
    }

  private:
    common::io::UniqueFd fd_;
};

std::string owners_key(const Owners &o) {
    return o.map_owners ? "range-" + std::to_string(o.uid_base) + "-" + std::to_string(o.gid_base) : "caller";
}

json read_names(const std::string &root) {
    auto j = common::read_json_object_file(root + "/names.json");
    return j ? *j : json::object();
}

std::string megabytes(int64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return buf;
}

}  // namespace

std::string ImageStore::default_root(const std::string &configured_state_dir) {
    if (!configured_state_dir.empty()) return configured_state_dir + "/images";
    if (const char *x = std::getenv("XDG_STATE_HOME"); x && *x) return std::string(x) + "/actionhost/images";
    if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/state/actionhost/images";
    return "/tmp/actionhost-" + std::to_string(::getuid()) + "/images";
}

namespace {

// The store and the directory above it must be the caller's (or root's) real directories: a store in a
// directory another user made (the /tmp fallback, a shared state directory) would let them swap in
// layers that sandboxes then run — the store trusts an unpacked layer it finds by name.
void check_owned(const std::string &dir) {
    struct stat st{};
    if (::lstat(dir.c_str(), &st) != 0) throw std::runtime_error("cannot read " + dir + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) throw std::runtime_error(dir + " is not a directory (a link?): refused as the image store's");
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        throw std::runtime_error(dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user: refused as the image store's");
    if ((st.st_mode & 0022) != 0 && !(st.st_mode & S_ISVTX))
        throw std::runtime_error(dir + " is writable by others: refused as the image store's");
}

}  // namespace

ImageStore::ImageStore(StoreSettings settings)
    : settings_(std::move(settings)), blobs_([&] {
          std::error_code ec;
          fs::create_directories(settings_.root, ec);
          if (ec) throw std::runtime_error("cannot create the image store " + settings_.root + ": " + ec.message());
          fs::path normal = fs::path(settings_.root).lexically_normal();
          if (!normal.has_filename()) normal = normal.parent_path();  // "…/images/"
          const std::string parent = normal.parent_path().string();
          if (!parent.empty()) check_owned(parent);
          check_owned(settings_.root);
          if (::chmod(settings_.root.c_str(), 0700) != 0) throw std::runtime_error("cannot make " + settings_.root + " private");
          return settings_.root;
      }()) {}

void ImageStore::remember(const std::string &name, const std::string &digest) {
    json names = read_names(settings_.root);
    names[name] = {{"digest", digest}, {"created", static_cast<long long>(std::time(nullptr))}};
    const std::string tmp = settings_.root + "/names.json.tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << common::dump_json(names);
        if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
    }
    fs::rename(tmp, settings_.root + "/names.json");
}

std::vector<StoredImage> ImageStore::list() const {
    std::vector<StoredImage> out;
    const json names = read_names(settings_.root);
    for (const auto &[name, v] : names.items())
        if (v.is_object()) out.push_back({name, v.value("digest", ""), v.value("created", 0LL)});
    return out;
}

std::string ImageStore::pull(const std::string &reference, const std::function<void(const std::string &)> &progress) {
    runtime_support::ImageReference ref;
    try {
        ref = runtime_support::parse_image_reference(reference);
    } catch (const std::invalid_argument &e) {
        throw std::runtime_error(e.what());
    }
    RegistryClient client(ref, settings_.registry);
    const std::string wanted = ref.digest.empty() ? ref.tag : ref.digest;
    if (progress) progress("pulling " + reference);
    FetchedDocument doc = client.manifest(wanted);
    json document = json::parse(doc.bytes, nullptr, false);
    DocumentKind kind = document_kind(doc.media_type, document);
    if (kind == DocumentKind::Index) {
        blobs_.put(doc.bytes);
        const Descriptor chosen = select_platform(parse_index(document), settings_.platform);
        doc = client.manifest(chosen.digest);
        document = json::parse(doc.bytes, nullptr, false);
        kind = document_kind(doc.media_type.empty() ? chosen.media_type : doc.media_type, document);
    }
    if (kind != DocumentKind::Manifest) throw std::runtime_error(reference + " names neither an image manifest nor an index (" + doc.media_type + ")");
    const Manifest m = parse_manifest(document);
    const std::string digest = blobs_.put(doc.bytes);
    client.blob(m.config, blobs_);
    int64_t total = 0, done = 0;
    for (const auto &l : m.layers) total += l.size;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        client.blob(m.layers[i], blobs_, [&](int64_t bytes) {
            if (progress)
                progress("pulling " + reference + ": layer " + std::to_string(i + 1) + " of " + std::to_string(m.layers.size()) + ", " +
                         megabytes(done + bytes) + " of " + megabytes(total));
        });
        done += m.layers[i].size;
    }
    return digest;
}

std::string ImageStore::resolve(const std::string &reference, const std::function<void(const std::string &)> &progress) {
    const json names = read_names(settings_.root);
    if (names.contains(reference) && names[reference].is_object()) {
        const std::string digest = names[reference].value("digest", "");
        if (blobs_.has(digest)) return digest;
    }
    const ImageSource source = parse_image_source(reference);
    std::string digest;
    switch (source.kind) {
        case ImageSource::OciLayout:
            if (progress) progress("importing " + reference);
            digest = import_oci_layout(source, blobs_, settings_.platform);
            break;
        case ImageSource::DockerArchive:
            if (progress) progress("importing " + reference);
            digest = import_docker_archive(source, blobs_, static_cast<int64_t>(settings_.max_image_bytes));
            break;
        case ImageSource::Registry: {
            // Known by its canonical name ("busybox" is "docker.io/library/busybox:latest")?
            const auto ref = runtime_support::parse_image_reference(reference);
            const std::string canonical = ref.registry + "/" + ref.path + (ref.digest.empty() ? ":" + ref.tag : "@" + ref.digest);
            if (names.contains(canonical) && names[canonical].is_object() && blobs_.has(names[canonical].value("digest", "")))
                return names[canonical].value("digest", "");
            digest = pull(reference, progress);
            remember(canonical, digest);
            break;
        }
    }
    remember(reference, digest);
    return digest;
}

std::string ImageStore::ensure_layer(const Descriptor &layer, const Owners &owners, uint64_t &budget, PreparedImage &out) {
    const std::string parent = settings_.root + "/layers/" + owners_key(owners);
    const std::string dir = parent + "/" + layer.digest.substr(7);
    struct stat st{};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    std::error_code ec;
    fs::create_directories(parent, ec);
    std::string tmp = parent + "/tmp-XXXXXX";
    if (::mkdtemp(tmp.data()) == nullptr) throw std::runtime_error("cannot create a directory in " + parent + ": " + std::strerror(errno));
    UnpackPolicy policy;
    policy.map_owners = owners.map_owners;
    policy.uid_base = owners.uid_base;
    policy.gid_base = owners.gid_base;
    policy.max_bytes = budget;
    UnpackReport report;
    common::Status unpacked = unpack_layer(blobs_.path(layer.digest), tmp, policy, report);
    if (!unpacked) {
        runtime_support::remove_tree(tmp);
        throw std::runtime_error("the layer " + layer.digest + " is refused: " + unpacked.error().message);
    }
    // The unpacked root is the image's "/": the sandbox's root directory, its owner's.
    if (owners.map_owners) (void)!::lchown(tmp.c_str(), static_cast<uid_t>(owners.uid_base), static_cast<gid_t>(owners.gid_base));
    ::chmod(tmp.c_str(), 0755);
    budget -= std::min(budget, report.bytes);
    for (auto &n : report.notes) out.notes.push_back(layer.digest.substr(7, 12) + ": " + n);
    if (::rename(tmp.c_str(), dir.c_str()) != 0) runtime_support::remove_tree(tmp);  // another start unpacked it first
    return dir;
}

std::string ImageStore::commit(const std::string &base_digest, const std::string &upper, const Owners &owners,
                               const std::string &name) {
    if (name.empty() || name.find_first_of(" \t\n") != std::string::npos || name.find(':') == 0)
        throw std::runtime_error("not an image name: '" + name + "'");
    StoreLock lock(settings_.root);
    json manifest = json::parse(blobs_.read(base_digest), nullptr, false);
    const Manifest base = parse_manifest(manifest);
    json config = json::parse(blobs_.read(base.config.digest), nullptr, false);
    if (!config.is_object()) throw std::runtime_error("the base image's config is not an object");
    const WrittenLayer layer = write_layer(upper, {owners.map_owners, owners.uid_base, owners.gid_base}, blobs_, settings_.max_image_bytes);
    if (!config.contains("rootfs") || !config["rootfs"].is_object()) config["rootfs"] = {{"type", "layers"}, {"diff_ids", json::array()}};
    config["rootfs"]["diff_ids"].push_back(layer.digest);
    if (!config.contains("history") || !config["history"].is_array()) config["history"] = json::array();
    config["history"].push_back({{"created_by", "actionhost snapshot " + name}, {"comment", "a sandbox's own layer"}});
    const std::string config_text = common::dump_json(config);
    const std::string config_digest = blobs_.put(config_text);
    manifest["config"]["digest"] = config_digest;
    manifest["config"]["size"] = static_cast<int64_t>(config_text.size());
    manifest["mediaType"] = media::kOciManifest;
    manifest["config"]["mediaType"] = media::kOciConfig;
    // An OCI manifest names OCI layer types (the bytes of Docker's gzip layer are the same).
    for (auto &l : manifest["layers"]) {
        const std::string type = l.value("mediaType", "");
        if (type == media::kDockerLayerGzip) l["mediaType"] = media::kOciLayerGzip;
        else if (type.rfind("application/vnd.docker.image.rootfs.diff.tar", 0) == 0) l["mediaType"] = media::kOciLayer;
    }
    manifest["layers"].push_back({{"mediaType", media::kOciLayer}, {"digest", layer.digest}, {"size", layer.size}});
    const std::string digest = blobs_.put(common::dump_json(manifest));
    remember(name, digest);
    return digest;
}

std::string ImageStore::push(const std::string &name, const std::string &reference, const std::function<void(const std::string &)> &progress) {
    runtime_support::ImageReference ref;
    try {
        ref = runtime_support::parse_image_reference(reference);
    } catch (const std::invalid_argument &e) {
        throw std::runtime_error(e.what());
    }
    if (!ref.digest.empty()) throw std::runtime_error("push to a tag, not a digest: " + reference);
    std::string manifest_digest;
    {
        StoreLock lock(settings_.root);
        const json names = read_names(settings_.root);
        if (!names.contains(name) || !names[name].is_object()) throw std::runtime_error("no image named '" + name + "' in " + settings_.root);
        manifest_digest = names[name].value("digest", "");
    }
    const std::string bytes = blobs_.read(manifest_digest);
    const json document = json::parse(bytes, nullptr, false);
    if (document_kind("", document) != DocumentKind::Manifest) throw std::runtime_error("the image '" + name + "' is not a single manifest");
    const Manifest m = parse_manifest(document);
    RegistryClient client(ref, settings_.registry);
    std::vector<Descriptor> blobs = m.layers;
    blobs.insert(blobs.begin(), m.config);
    for (size_t i = 0; i < blobs.size(); ++i) {
        if (!blobs_.has(blobs[i].digest)) throw std::runtime_error("the store lacks the blob " + blobs[i].digest + " of '" + name + "'");
        const std::string what = i == 0 ? std::string("config") : "layer " + std::to_string(i) + " of " + std::to_string(blobs.size() - 1);
        if (client.has_blob(blobs[i].digest)) {
            if (progress) progress("pushing " + reference + ": " + what + " already there");
            continue;
        }
        client.upload_blob(blobs[i], blobs_, [&](int64_t sent) {
            if (progress) progress("pushing " + reference + ": " + what + ", " + megabytes(sent) + " of " + megabytes(blobs[i].size));
        });
    }
    const std::string media_type = document.value("mediaType", std::string(media::kOciManifest));
    const std::string answered = client.put_manifest(ref.tag, bytes, media_type);
    if (!answered.empty() && answered != manifest_digest)
        throw std::runtime_error("the registry stored the manifest as " + answered + ", not " + manifest_digest);
    return manifest_digest;
}

uint64_t ImageStore::remove(const std::string &name, const std::vector<std::string> &in_use) {
    StoreLock lock(settings_.root);
    json names = read_names(settings_.root);
    if (!names.contains(name)) throw std::runtime_error("no image named '" + name + "' in " + settings_.root);
    const std::string digest = names[name].value("digest", "");
    if (std::find(in_use.begin(), in_use.end(), digest) != in_use.end())
        throw std::runtime_error("the image '" + name + "' is in use by a running sandbox: stop it first");
    names.erase(name);
    {
        const std::string tmp = settings_.root + "/names.json.tmp";
        std::ofstream(tmp, std::ios::trunc) << common::dump_json(names);
        fs::rename(tmp, settings_.root + "/names.json");
    }
    // What the remaining names and the running sandboxes still need.
    std::set<std::string> needed;
    auto keep = [&](const std::string &manifest_digest) {
        if (!blobs_.has(manifest_digest)) return;
        needed.insert(manifest_digest);
        const json m = json::parse(blobs_.read(manifest_digest), nullptr, false);
        if (document_kind("", m) != DocumentKind::Manifest) return;
        const Manifest parsed = parse_manifest(m);
        needed.insert(parsed.config.digest);
        for (const auto &l : parsed.layers) needed.insert(l.digest);
    };
    for (const auto &[n, v] : names.items())
        if (v.is_object()) keep(v.value("digest", ""));
    for (const auto &d : in_use) keep(d);
    uint64_t freed = 0;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(settings_.root + "/blobs/sha256", ec)) {
        if (needed.count("sha256:" + e.path().filename().string())) continue;
        freed += static_cast<uint64_t>(e.file_size(ec));
        fs::remove(e.path(), ec);
    }
    for (const auto &owners_dir : fs::directory_iterator(settings_.root + "/layers", ec)) {
        for (const auto &layer : fs::directory_iterator(owners_dir.path(), ec)) {
            const std::string hex = layer.path().filename().string();
            if (needed.count("sha256:" + hex) || hex.rfind("tmp-", 0) == 0) continue;
            runtime_support::remove_tree(layer.path().string());
        }
    }
    return freed;
}

PreparedImage ImageStore::prepare(const std::string &reference, const Owners &owners,
                                  const std::function<void(const std::string &)> &progress) {
    StoreLock lock(settings_.root);
    PreparedImage out;
    out.name = reference;
    out.digest = resolve(reference, progress);
    const Manifest m = parse_manifest(json::parse(blobs_.read(out.digest), nullptr, false));
    out.config = parse_config(json::parse(blobs_.read(m.config.digest), nullptr, false));
    if (!out.config.diff_ids.empty() && out.config.diff_ids.size() != m.layers.size())
        throw std::runtime_error("the image " + reference + " has " + std::to_string(m.layers.size()) + " layers but its config lists " +
                                 std::to_string(out.config.diff_ids.size()) + ": refused");
    uint64_t budget = settings_.max_image_bytes;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        if (progress && !m.layers.empty()) progress("unpacking " + reference + ": layer " + std::to_string(i + 1) + " of " + std::to_string(m.layers.size()));
        out.layers.push_back(ensure_layer(m.layers[i], owners, budget, out));
    }
    return out;
}

}  // namespace actionhost::client::images
