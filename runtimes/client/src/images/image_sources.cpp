#include "images/image_sources.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::client::images {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int64_t kMaxDocument = 4 << 20;

std::string absolute(const std::string &path) { return fs::absolute(path).lexically_normal().string(); }

// A file of a layout, read whole (documents only), never through a link out of the layout.
std::string read_document(const std::string &path) {
    common::io::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st{};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw std::runtime_error("cannot read " + path + (fd ? ": not a regular file" : std::string(": ") + std::strerror(errno)));
    if (st.st_size > kMaxDocument) throw std::runtime_error(path + " is larger than a document may be");
    std::string out(static_cast<size_t>(st.st_size), '\0');
    if (::read(fd.get(), out.data(), out.size()) != static_cast<ssize_t>(out.size())) throw std::runtime_error("cannot read " + path);
    return out;
}

json parse_document(const std::string &text, const std::string &what) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw std::runtime_error(what + " is not JSON");
    return j;
}

// Copies the layout's blob `d` into the store, verified on the way.
void copy_blob(const std::string &layout, const Descriptor &d, const BlobStore &store) {
    if (store.has(d.digest)) return;
    const std::string path = layout + "/blobs/sha256/" + d.digest.substr(7);
    common::io::UniqueFd in(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st{};
    if (!in || ::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) throw std::runtime_error("the layout has no blob " + d.digest + " (" + path + ")");
    BlobWriter w = store.writer(d.digest, d.size);
    char buf[1 << 16];
    for (ssize_t n; (n = ::read(in.get(), buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
        w.write(std::string_view(buf, static_cast<size_t>(n)));
    }
    w.commit();
}

struct ArchiveCloser {
    void operator()(archive *a) const { archive_read_free(a); }
};
using Archive = std::unique_ptr<archive, ArchiveCloser>;

Archive open_tar(const std::string &file) {
    Archive a(archive_read_new());
    archive_read_support_filter_all(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), file.c_str(), 1 << 16) != ARCHIVE_OK)
        throw std::runtime_error("cannot read " + file + ": " + archive_error_string(a.get()));
    return a;
}

std::string normal_name(const char *raw) {
    std::string n = raw != nullptr ? raw : "";
    while (n.rfind("./", 0) == 0) n = n.substr(2);
    return n;
}

}  // namespace

ImageSource parse_image_source(const std::string &text) {
    if (text.empty()) throw std::invalid_argument("an empty image reference");
    ImageSource s;
    s.text = text;
    if (text.rfind("oci:", 0) == 0) {
        std::string rest = text.substr(4);
        // DIR:TAG, where the tag follows the last ':' after the last '/'.
        const size_t slash = rest.rfind('/');
        const size_t colon = rest.rfind(':');
        if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
            s.tag = rest.substr(colon + 1);
            rest = rest.substr(0, colon);
        }
        if (rest.empty()) throw std::invalid_argument("oci: needs a directory (oci:DIR[:TAG])");
        s.kind = ImageSource::OciLayout;
        s.path = absolute(rest);
        return s;
    }
    if (text.rfind("docker-archive:", 0) == 0) {
        if (text.size() == 15) throw std::invalid_argument("docker-archive: needs a file (docker-archive:FILE)");
        s.kind = ImageSource::DockerArchive;
        s.path = absolute(text.substr(15));
        return s;
    }
    s.kind = ImageSource::Registry;
    return s;
}

std::string import_oci_layout(const ImageSource &source, const BlobStore &store, const Platform &platform) {
    const std::string &dir = source.path;
    const json index = parse_document(read_document(dir + "/index.json"), dir + "/index.json");
    std::vector<Descriptor> entries = parse_index(index);
    std::vector<Descriptor> named;
    for (const auto &e : entries) {
        const std::string name = e.annotations.is_object() ? e.annotations.value("org.opencontainers.image.ref.name", "") : "";
        if (source.tag.empty() ? true : name == source.tag) named.push_back(e);
    }
    if (named.empty()) throw std::runtime_error("the OCI layout " + dir + " has no image tagged '" + source.tag + "'");
    if (named.size() > 1 && source.tag.empty())
        throw std::runtime_error("the OCI layout " + dir + " holds " + std::to_string(named.size()) + " images: name one (oci:DIR:TAG)");
    Descriptor chosen = named.front();
    for (int depth = 0; depth < 4; ++depth) {
        copy_blob(dir, chosen, store);
        const json document = parse_document(store.read(chosen.digest), "the manifest " + chosen.digest);
        const DocumentKind kind = document_kind(chosen.media_type, document);
        if (kind == DocumentKind::Index) {
            chosen = select_platform(parse_index(document), platform);
            continue;
        }
        if (kind != DocumentKind::Manifest) throw std::runtime_error(chosen.digest + " in " + dir + " is neither a manifest nor an index");
        const Manifest m = parse_manifest(document);
        copy_blob(dir, m.config, store);
        for (const auto &l : m.layers) copy_blob(dir, l, store);
        return chosen.digest;
    }
    throw std::runtime_error("the OCI layout " + dir + " nests indexes too deeply");
}

std::string import_docker_archive(const ImageSource &source, const BlobStore &store, int64_t max_layer_bytes) {
    const std::string &file = source.path;
    // Pass 1: manifest.json, wherever it is in the archive.
    json manifest;
    {
        Archive a = open_tar(file);
        archive_entry *entry = nullptr;
        while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
            if (normal_name(archive_entry_pathname(entry)) != "manifest.json") continue;
            const int64_t size = archive_entry_size(entry);
            if (size < 0 || size > kMaxDocument) throw std::runtime_error(file + ": manifest.json is too large");
            std::string text(static_cast<size_t>(size), '\0');
            if (archive_read_data(a.get(), text.data(), text.size()) != size) throw std::runtime_error(file + ": cannot read manifest.json");
            manifest = parse_document(text, file + ": manifest.json");
            break;
        }
    }
    if (!manifest.is_array() || manifest.empty() || !manifest[0].is_object())
        throw std::runtime_error(file + " is not a docker save archive (no manifest.json listing an image)");
    const json &image = manifest[0];
    const std::string config_name = image.value("Config", "");
    if (config_name.empty() || !image.contains("Layers") || !image["Layers"].is_array())
        throw std::runtime_error(file + ": manifest.json names no config or layers");
    std::vector<std::string> layer_names;
    for (const auto &l : image["Layers"]) {
        if (!l.is_string()) throw std::runtime_error(file + ": manifest.json has a layer that is not a name");
        layer_names.push_back(normal_name(l.get<std::string>().c_str()));
    }
    // Pass 2: the config and each layer into the store, named by their content.
    std::map<std::string, std::pair<std::string, int64_t>> stored;  // archive name → digest, size
    {
        Archive a = open_tar(file);
        archive_entry *entry = nullptr;
        while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
            const std::string name = normal_name(archive_entry_pathname(entry));
            const bool wanted = name == normal_name(config_name.c_str()) ||
                                std::find(layer_names.begin(), layer_names.end(), name) != layer_names.end();
            if (!wanted || archive_entry_filetype(entry) != AE_IFREG || stored.count(name)) continue;
            BlobWriter w = store.content_writer(max_layer_bytes);
            char buf[1 << 16];
            for (la_ssize_t n; (n = archive_read_data(a.get(), buf, sizeof buf)) != 0;) {
                if (n < 0) throw std::runtime_error(file + ": cannot read " + name + ": " + archive_error_string(a.get()));
                w.write(std::string_view(buf, static_cast<size_t>(n)));
            }
            const int64_t size = w.written();
            stored[name] = {w.commit(), size};
        }
    }
    auto stored_as = [&](const std::string &name) {
        auto it = stored.find(name);
        if (it == stored.end()) throw std::runtime_error(file + " lacks " + name + ", which its manifest.json names");
        return it->second;
    };
    const auto [config_digest, config_size] = stored_as(normal_name(config_name.c_str()));
    json oci = {{"schemaVersion", 2},
                {"mediaType", media::kOciManifest},
                {"config", {{"mediaType", media::kOciConfig}, {"digest", config_digest}, {"size", config_size}}},
                {"layers", json::array()}};
    for (const auto &l : layer_names) {
        const auto [digest, size] = stored_as(l);
        oci["layers"].push_back({{"mediaType", media::kOciLayer}, {"digest", digest}, {"size", size}});
    }
    return store.put(actionhost::common::dump_json(oci));
}

}  // namespace actionhost::client::images
