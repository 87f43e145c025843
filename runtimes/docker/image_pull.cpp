#include "image_pull.hpp"

#include <actionhost/runtime_support/url_encode.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "registry_auth.hpp"
#include <actionhost/common/json_write.hpp>

namespace docker {

using actionhost::runtime_support::url_encode;
using nlohmann::json;

namespace {

std::string megabytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
    return buf;
}

std::string engine_message(const std::string &body) {
    json j = json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
    return body;
}

}  // namespace

void pull_image(Engine &engine, const std::string &image, const PullSettings &settings,
                const std::function<void(const std::string &)> &progress) {
    const ImageReference ref = parse_image_reference(image);
    std::string query = "/images/create?fromImage=" + url_encode(ref.from_image()) +
                        "&tag=" + url_encode(ref.digest.empty() ? ref.tag : ref.digest);
    if (!settings.platform.empty()) query += "&platform=" + url_encode(settings.platform);
    std::vector<std::string> headers;
    if (auto creds = registry_credentials(settings.docker_config_dir, ref.registry))
        headers.push_back("X-Registry-Auth: " + registry_auth_header(*creds));

    struct Layer {
        double current = 0, total = 0;
        bool done = false;
    };
    std::map<std::string, Layer> layers;
    std::string error;
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    auto report = [&](bool force) {
        const auto now = std::chrono::steady_clock::now();
        if (!progress || (!force && now - last < std::chrono::milliseconds(500))) return;
        last = now;
        double current = 0, total = 0;
        int done = 0;
        for (const auto &[_, l] : layers) {
            current += l.done ? l.total : l.current;
            total += l.total;
            done += l.done;
        }
        std::string line = "pulling " + image + ": " + std::to_string(done) + " of " + std::to_string(layers.size()) + " layers";
        if (total > 0) line += ", " + megabytes(current) + " of " + megabytes(total);
        progress(line);
    };
    if (progress) progress("pulling " + image);
    const EngineReply reply = engine.stream("POST", query, "", "application/json", headers, [&](const json &m) {
        if (m.contains("error")) {
            error = m["error"].is_string() ? m["error"].get<std::string>() : actionhost::common::dump_json(m["error"]);
            return;
        }
        const std::string id = m.value("id", "");
        const std::string st = m.value("status", "");
        if (id.empty() || st.rfind("Pulling from", 0) == 0) return;
        Layer &l = layers[id];
        if (st == "Downloading" && m.contains("progressDetail") && m["progressDetail"].is_object()) {
            l.current = m["progressDetail"].value("current", 0.0);
            l.total = std::max(l.total, m["progressDetail"].value("total", 0.0));
            report(false);
        } else if (st == "Pull complete" || st == "Already exists" || st == "Download complete") {
            const bool was = l.done;
            l.done = true;
            if (!was) report(true);
        }
    }, 300, 3600);
    if (reply.status != 200) error = engine_message(reply.body);
    if (!error.empty()) throw std::runtime_error("pulling " + image + " failed: " + error);
}

}  // namespace docker
