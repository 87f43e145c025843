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
#include "md5.hpp"
#include "tar_context.hpp"

namespace docker {
using actionhost::runtime_support::url_encode;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool image_exists(Engine &engine, const std::string &name) {
    return engine.call("GET", "/images/" + name + "/json").status == 200;
}

// The install tree as the image carries it: the host binary and its modules.
void add_install_tree(TarContext &tar, const std::string &install_dir) {
    tar.add_directory("code");
    tar.add_directory("code/bin");
    std::ifstream in(install_dir + "/bin/actionhost", std::ios::binary);
    if (!in) throw std::runtime_error("no host binary at " + install_dir + "/bin/actionhost");
    tar.add_file("code/bin/actionhost", std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), 0755);
    tar.add_directory("code/lib");
    tar.add_tree(install_dir + "/lib/actionhost", "code/lib/actionhost");
}

// POST /build; the answer is a stream of JSON messages, and a failed build still answers 200 with an
// "error" message.
void build(Engine &engine, const std::string &dockerfile, const std::string &install_dir,
           const std::vector<std::string> &tags, const std::function<void(const std::string &)> &progress) {
    TarContext tar;
    tar.add_file("Dockerfile", dockerfile);
    if (!install_dir.empty()) add_install_tree(tar, install_dir);
    std::string query = "/build?dockerfile=Dockerfile&rm=1&forcerm=1";
    for (const auto &t : tags) query += "&t=" + url_encode(t);
    EngineReply r = engine.call("POST", query, tar.finish(), "application/x-tar", 600);
    if (r.status != 200) throw std::runtime_error("Docker Engine: build → " + std::to_string(r.status) + ": " + r.body);
    std::istringstream lines(r.body);
    std::string line, log;
    for (int i = 0; i < 1000000 && std::getline(lines, line); ++i) {
        if (line.empty()) continue;
        json m = json::parse(line, nullptr, false);
        if (m.is_discarded()) continue;
        if (m.contains("error")) {
            std::string err = m["error"].is_string() ? m["error"].get<std::string>() : m["error"].dump();
            throw std::runtime_error("Docker Engine: image build failed: " + err + "\n" + log);
        }
        if (m.contains("stream") && m["stream"].is_string()) {
            log += m["stream"].get<std::string>();
            std::string s = m["stream"].get<std::string>();
            while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
            if (!s.empty() && progress) progress(s);
        }
    }
}

}  // namespace

std::string md5_hex(const std::string &text) {
    Md5 m;
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
    const std::string lock_inputs =
        plan.base_image + (plan.browser_enabled ? "" : "False") + "actionhost " + plan.version + " install " + plan.install_path;
    const std::string lock = "oh_v" + plan.version + "_" + truncate_hash(md5_hex(lock_inputs));
    const std::string source = lock + "_" + truncate_hash(cached_install_tree_hash(plan.install_dir));
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
    if (progress) progress("building " + tags.source + " from " + from);
    // COPY only (no RUN): any base image works, shell or not. The host's shared libraries come from the
    // base image or the /usr bind mount (docker_mount_host_usr), as in the bind-mount mode.
    const std::string dockerfile = "FROM " + from + "\n" +
                                   "LABEL actionhost.version=\"" + plan.version + "\"\n" +
                                   "COPY code " + plan.install_path + "\n" +
                                   "WORKDIR /\n";
    build(engine, dockerfile, plan.install_dir, out.tags_added, progress);
    return out;
}

}  // namespace docker
