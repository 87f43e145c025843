#include "images/oci.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <stdexcept>

namespace actionhost::client::images {

using nlohmann::json;

namespace {

[[noreturn]] void malformed(const std::string &what) { throw std::runtime_error("malformed image document: " + what); }

std::string string_field(const json &j, const char *name, bool required = true) {
    if (j.is_object() && j.contains(name) && j[name].is_string()) return j[name].get<std::string>();
    if (required) malformed(std::string("no \"") + name + "\" string");
    return "";
}

Descriptor parse_descriptor(const json &j, const std::string &where) {
    if (!j.is_object()) malformed(where + " is not an object");
    Descriptor d;
    d.media_type = string_field(j, "mediaType", false);
    d.digest = string_field(j, "digest");
    if (!valid_digest(d.digest)) malformed(where + " has the digest '" + d.digest + "' (sha256 only)");
    if (!j.contains("size") || !j["size"].is_number_integer() || j["size"].get<int64_t>() < 0)
        malformed(where + " has no size");
    d.size = j["size"].get<int64_t>();
    if (j.contains("platform")) d.platform = j["platform"];
    if (j.contains("annotations")) d.annotations = j["annotations"];
    return d;
}

std::string machine_architecture() {
    utsname u{};
    ::uname(&u);
    const std::string m = u.machine;
    if (m == "x86_64") return "amd64";
    if (m == "aarch64") return "arm64";
    return m;
}

}  // namespace

bool valid_digest(const std::string &digest) {
    if (digest.size() != 71 || digest.rfind("sha256:", 0) != 0) return false;
    return std::all_of(digest.begin() + 7, digest.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Platform parse_platform(const std::string &text) {
    Platform p;
    if (text.empty()) {
        p.architecture = machine_architecture();
        return p;
    }
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t slash; (slash = text.find('/', start)) != std::string::npos; start = slash + 1) parts.push_back(text.substr(start, slash - start));
    parts.push_back(text.substr(start));
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty())
        throw std::invalid_argument("sandbox.platform must be OS/ARCH[/VARIANT] (e.g. linux/amd64), not '" + text + "'");
    p.os = parts[0];
    p.architecture = parts[1];
    if (parts.size() == 3) p.variant = parts[2];
    return p;
}

std::string to_string(const Platform &p) { return p.os + "/" + p.architecture + (p.variant.empty() ? "" : "/" + p.variant); }

DocumentKind document_kind(const std::string &media_type, const json &document) {
    std::string type = media_type;
    if (const size_t semi = type.find(';'); semi != std::string::npos) type = type.substr(0, semi);
    if (type.empty() || type == "application/json" || type == "text/plain")
        type = document.is_object() ? document.value("mediaType", std::string()) : std::string();
    if (type == media::kOciManifest || type == media::kDockerManifest) return DocumentKind::Manifest;
    if (type == media::kOciIndex || type == media::kDockerManifestList) return DocumentKind::Index;
    // An OCI document without a media type: tell them apart by their fields.
    if (type.empty() && document.is_object()) {
        if (document.contains("manifests")) return DocumentKind::Index;
        if (document.contains("layers") && document.contains("config")) return DocumentKind::Manifest;
    }
    return DocumentKind::Unknown;
}

Manifest parse_manifest(const json &document) {
    if (!document.is_object()) malformed("a manifest is not an object");
    if (document.value("schemaVersion", 0) != 2) malformed("only schema version 2 manifests are read");
    Manifest m;
    m.config = parse_descriptor(document.value("config", json()), "the config");
    if (!document.contains("layers") || !document["layers"].is_array()) malformed("a manifest without layers");
    size_t i = 0;
    for (const auto &l : document["layers"]) m.layers.push_back(parse_descriptor(l, "layer " + std::to_string(i++)));
    if (m.layers.size() > 500) malformed("more than 500 layers");
    return m;
}

std::vector<Descriptor> parse_index(const json &document) {
    if (!document.is_object() || !document.contains("manifests") || !document["manifests"].is_array())
        malformed("an index without manifests");
    std::vector<Descriptor> out;
    size_t i = 0;
    for (const auto &m : document["manifests"]) out.push_back(parse_descriptor(m, "index entry " + std::to_string(i++)));
    return out;
}

Descriptor select_platform(const std::vector<Descriptor> &entries, const Platform &platform) {
    std::string seen;
    for (const auto &d : entries) {
        const json &p = d.platform;
        if (!p.is_object()) continue;
        const std::string os = p.value("os", ""), arch = p.value("architecture", ""), variant = p.value("variant", "");
        seen += (seen.empty() ? "" : ", ") + os + "/" + arch + (variant.empty() ? "" : "/" + variant);
        if (os != platform.os || arch != platform.architecture) continue;
        if (!platform.variant.empty() && !variant.empty() && variant != platform.variant) continue;
        return d;
    }
    throw std::runtime_error("the image has no " + to_string(platform) + " variant (it has: " + (seen.empty() ? "none named" : seen) +
                             "); sandbox.platform chooses another");
}

ImageConfig parse_config(const json &document) {
    if (!document.is_object()) malformed("an image config is not an object");
    ImageConfig c;
    const json &cfg = document.value("config", json::object());
    if (cfg.is_object()) {
        if (cfg.contains("Env") && cfg["Env"].is_array())
            for (const auto &e : cfg["Env"])
                if (e.is_string() && e.get<std::string>().find('=') != std::string::npos) c.env.push_back(e.get<std::string>());
        c.working_dir = string_field(cfg, "WorkingDir", false);
        c.user = string_field(cfg, "User", false);
    }
    const json &rootfs = document.value("rootfs", json::object());
    if (rootfs.is_object() && rootfs.contains("diff_ids") && rootfs["diff_ids"].is_array())
        for (const auto &d : rootfs["diff_ids"])
            if (d.is_string()) c.diff_ids.push_back(d.get<std::string>());
    return c;
}

}  // namespace actionhost::client::images
