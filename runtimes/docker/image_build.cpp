#include "image_build.hpp"

#include <actionhost/runtime_support/url_encode.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "install_hash.hpp"
#include <actionhost/common/digest.hpp>
#include "tar_context.hpp"
#include <actionhost/common/json_write.hpp>

namespace docker {
using actionhost::runtime_support::url_encode;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool image_exists(Engine &engine, const std::string &name) {
    return engine.call("GET", "/images/" + name + "/json").status == 200;
}

// The bundle as the image carries it: the host tree and OpenHands' start-command shim.
void add_bundle(TarContext &tar, const std::string &bundle_dir) {
    if (!fs::exists(bundle_dir + "/actionhost/bin/actionhost"))
        throw std::runtime_error("no host bundle at " + bundle_dir + "/actionhost (build it: cmake --build --preset default --target bundle_tree)");
    tar.add_tree(bundle_dir + "/actionhost", "code");
    if (fs::exists(bundle_dir + "/micromamba")) tar.add_tree(bundle_dir + "/micromamba", "micromamba");
}

// POST /build; the answer is a stream of JSON messages, read as they come, and a failed build still
// answers 200 with an "error" message.
void build(Engine &engine, const std::string &dockerfile, const ImagePlan &plan, const std::vector<std::string> &tags,
           const std::function<void(const std::string &)> &progress) {
    TarContext tar;
    tar.add_file("Dockerfile", dockerfile);
    add_bundle(tar, plan.bundle_dir);
    std::string query = "/build?dockerfile=Dockerfile&rm=1&forcerm=1" + plan.build_query;
    for (const auto &t : tags) query += "&t=" + url_encode(t);
    std::string log, error;
    const EngineReply reply = engine.stream("POST", query, tar.finish(), "application/x-tar", {}, [&](const json &m) {
        if (m.contains("error")) {
            error = m["error"].is_string() ? m["error"].get<std::string>() : actionhost::common::dump_json(m["error"]);
            return;
        }
        if (m.contains("stream") && m["stream"].is_string()) {
            std::string s = m["stream"].get<std::string>();
            log += s;
            while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
            if (!s.empty() && progress) progress(s);
        }
    }, 1800, 3600);
    if (reply.status != 200) throw std::runtime_error("Docker Engine: build → " + std::to_string(reply.status) + ": " + reply.body);
    if (!error.empty()) throw std::runtime_error("Docker Engine: image build failed: " + error + "\n" + log);
}

}  // namespace

std::string md5_hex(const std::string &text) {
    actionhost::common::Digest m = actionhost::common::Digest::md5();
    m.update(text);
    return m.hex();
}

std::string truncate_hash(const std::string &hex_digest) {
    // Big-endian base-256 digits of the number, divided by 36 repeatedly.
    std::vector<unsigned> num;
    for (size_t i = 0; i + 1 < hex_digest.size(); i += 2)
        num.push_back(static_cast<unsigned>(std::stoul(hex_digest.substr(i, 2), nullptr, 16)));
    static const char *alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string out;
    auto is_zero = [&] { return std::all_of(num.begin(), num.end(), [](unsigned d) { return d == 0; }); };
    while (!is_zero() && out.size() < 16) {
        unsigned rem = 0;
        for (auto &d : num) {
            const unsigned cur = rem * 256 + d;
            d = cur / 36;
            rem = cur % 36;
        }
        out += alphabet[rem];
    }
    return out;
}

std::string versioned_tag(const std::string &version, const std::string &base_image) {
    std::string b;
    for (char c : base_image) {
        if (c == '/') b += "_s_";
        else if (c == ':') b += "_t_";
        else b += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (b.size() > 96) b = b.substr(b.size() - 96);
    return "oh_v" + version + "_" + b;
}

ImageTags image_tags(const ImagePlan &plan) {
    // What the host needs besides its code; changing any of it rebuilds from the base image.
    const std::string lock_inputs = plan.base_image + (plan.browser_enabled ? "" : "False") + "actionhost " + plan.version +
                                    " install " + plan.install_path +
                                    (plan.extra_deps.empty() ? "" : " extra deps " + plan.extra_deps);
    const std::string lock = "oh_v" + plan.version + "_" + truncate_hash(md5_hex(lock_inputs));
    const std::string source = lock + "_" + truncate_hash(cached_install_tree_hash(plan.bundle_dir));
    return {plan.repo + ":" + lock, plan.repo + ":" + source, plan.repo + ":" + versioned_tag(plan.version, plan.base_image)};
}

BuildOutcome ensure_runtime_image(Engine &engine, const ImagePlan &plan, const std::function<void(const std::string &)> &progress) {
    const ImageTags tags = image_tags(plan);
    BuildOutcome out;
    out.image = tags.source;
    if (!plan.force_rebuild && image_exists(engine, tags.source)) return out;
    std::string from;
    if (!plan.force_rebuild && image_exists(engine, tags.lock)) {
        from = tags.lock;
        out.built_from = "lock";
        out.tags_added = {tags.source, tags.lock};
    } else if (!plan.force_rebuild && image_exists(engine, tags.versioned)) {
        from = tags.versioned;
        out.built_from = "versioned";
        out.tags_added = {tags.source, tags.lock};
    } else {
        from = plan.base_image;
        out.built_from = "base";
        out.tags_added = {tags.source, tags.lock, tags.versioned};
    }
    if (out.built_from == "base" && plan.ensure_base) plan.ensure_base(plan.base_image);
    if (progress) progress("building " + tags.source + " from " + from);
    // The bundle brings every library the host loads, so any base image works; only extra deps RUN, in
    // the image's own shell (not again FROM the lock image, which has them).
    std::string dockerfile = "FROM " + from + "\n" + "LABEL actionhost.version=\"" + plan.version + "\"\n";
    if (!plan.extra_deps.empty() && out.built_from != "lock") dockerfile += "RUN " + plan.extra_deps + "\n";
    dockerfile += "COPY code " + plan.install_path + "\n";
    if (fs::exists(plan.bundle_dir + "/micromamba"))
        dockerfile += "COPY micromamba " + fs::path(plan.install_path).parent_path().string() + "/micromamba\n";
    dockerfile += "WORKDIR /\n";
    build(engine, dockerfile, plan, out.tags_added, progress);
    return out;
}

}  // namespace docker
