#include "plugins/plugin_artifact.hpp"

#include <stdexcept>

#include <actionhost/common/json_write.hpp>

namespace actionhost::client::plugins {

using nlohmann::json;

namespace {

json descriptor_json(const images::Descriptor &d) {
    json j = {{"mediaType", d.media_type}, {"digest", d.digest}, {"size", d.size}};
    if (d.annotations.is_object() && !d.annotations.empty()) j["annotations"] = d.annotations;
    return j;
}

json requires_json(const ArtifactInfo &info) {
    json r = json::object();
    for (const auto &[n, range] : info.requires_plugins) r[n] = range;
    return r;
}

std::string annotation_of(const json &annotations, const char *key) {
    if (!annotations.is_object() || !annotations.contains(key) || !annotations[key].is_string() || annotations[key].get<std::string>().empty())
        throw std::runtime_error(std::string("it is not a plugin artifact: it lacks the annotation ") + key);
    return annotations[key].get<std::string>();
}

}  // namespace

std::string artifact_config(const ArtifactInfo &info) {
    return common::dump_json(json{{"name", info.name},
                                  {"version", info.version},
                                  {"abi_version", info.abi_version},
                                  {"platform", info.platform},
                                  {"requires", json{{"plugins", requires_json(info)}}}});
}

std::string artifact_manifest(const ArtifactInfo &info) {
    json annotations = {{annotation::kName, info.name},
                        {annotation::kVersion, info.version},
                        {annotation::kAbi, info.abi_version},
                        {annotation::kPlatform, info.platform},
                        {annotation::kRequires, common::dump_json(requires_json(info))},
                        {"org.opencontainers.image.title", info.name},
                        {"org.opencontainers.image.version", info.version}};
    if (!info.description.empty()) annotations["org.opencontainers.image.description"] = info.description;
    const json m = {{"schemaVersion", 2},
                    {"mediaType", images::media::kOciManifest},
                    {"config", descriptor_json(info.config)},
                    {"layers", json::array({descriptor_json(info.layer)})},
                    {"annotations", annotations}};
    return common::dump_json(m);
}

ArtifactInfo parse_artifact_manifest(const std::string &bytes) {
    const json doc = json::parse(bytes, nullptr, false);
    if (!doc.is_object()) throw std::runtime_error("its manifest is not a JSON object");
    const images::Manifest m = images::parse_manifest(doc);
    if (m.config.media_type != media::kConfig)
        throw std::runtime_error("it is not a plugin artifact: its config is " + (m.config.media_type.empty() ? std::string("untyped") : m.config.media_type) +
                                 ", not " + media::kConfig + " (an image? plugins are pushed with ahctl plugin push)");
    if (m.layers.size() != 1 || m.layers[0].media_type != media::kLayer)
        throw std::runtime_error(std::string("it is not a plugin artifact: it must have one layer of type ") + media::kLayer);
    ArtifactInfo info;
    info.config = m.config;
    info.layer = m.layers[0];
    const json annotations = doc.value("annotations", json::object());
    info.name = annotation_of(annotations, annotation::kName);
    info.version = annotation_of(annotations, annotation::kVersion);
    info.abi_version = annotation_of(annotations, annotation::kAbi);
    info.platform = annotation_of(annotations, annotation::kPlatform);
    if (annotations.contains("org.opencontainers.image.description") && annotations["org.opencontainers.image.description"].is_string())
        info.description = annotations["org.opencontainers.image.description"].get<std::string>();
    const json requires_ = json::parse(annotations.value(annotation::kRequires, std::string("{}")), nullptr, false);
    if (!requires_.is_object()) throw std::runtime_error(std::string("its annotation ") + annotation::kRequires + " is not a JSON object");
    for (const auto &[n, range] : requires_.items()) {
        if (!range.is_string()) throw std::runtime_error(std::string("its annotation ") + annotation::kRequires + " gives " + n + " no range string");
        info.requires_plugins[n] = range.get<std::string>();
    }
    return info;
}

void check_artifact_config(const ArtifactInfo &info, const std::string &config_bytes) {
    const json c = json::parse(config_bytes, nullptr, false);
    if (!c.is_object()) throw std::runtime_error("its config is not a JSON object");
    for (auto [key, want] : {std::pair<const char *, const std::string *>{"name", &info.name},
                             {"version", &info.version},
                             {"abi_version", &info.abi_version},
                             {"platform", &info.platform}})
        if (c.value(key, std::string()) != *want)
            throw std::runtime_error(std::string("its config says ") + key + " \"" + c.value(key, std::string()) + "\" but its annotation says \"" +
                                     *want + "\": refused");
}

std::string signature_tag(const std::string &digest) {
    std::string t = digest;
    if (const size_t colon = t.find(':'); colon != std::string::npos) t[colon] = '-';
    return t + ".sig";
}

std::string signature_manifest(const images::Descriptor &config, const images::Descriptor &document, const std::string &signed_digest) {
    const json m = {{"schemaVersion", 2},
                    {"mediaType", images::media::kOciManifest},
                    {"config", descriptor_json(config)},
                    {"layers", json::array({descriptor_json(document)})},
                    {"annotations", {{"io.actionhost.plugin.signed", signed_digest}}}};
    return common::dump_json(m);
}

images::Descriptor parse_signature_manifest(const std::string &bytes) {
    const json doc = json::parse(bytes, nullptr, false);
    if (!doc.is_object()) throw std::runtime_error("its signature manifest is not a JSON object");
    const images::Manifest m = images::parse_manifest(doc);
    if (m.layers.size() != 1 || m.layers[0].media_type != media::kSignature)
        throw std::runtime_error(std::string("its signature artifact lacks a layer of type ") + media::kSignature);
    return m.layers[0];
}

}  // namespace actionhost::client::plugins
