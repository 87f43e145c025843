#include "image_build.hpp"
#include <actionhost/common/base64.hpp>

#include <Poco/Base64Encoder.h>
#include <Poco/DigestStream.h>
#include <Poco/MD5Engine.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/StringPartSource.h>

#include <sys/wait.h>

#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace remote {

namespace fs = std::filesystem;
using namespace actionhost::runtime_support;
using nlohmann::json;

namespace {

// The files the image gets, relative to the bundle directory: the host bundle (the host, its plugins and
// every library they load, so any base image works) and OpenHands' start-command shim.
std::vector<std::string> image_files(const std::string &bundle_dir) {
    std::vector<std::string> out;
    for (const char *part : {"actionhost", "micromamba"}) {
        const fs::path root = fs::path(bundle_dir) / part;
        if (!fs::exists(root)) continue;
        for (const auto &e : fs::recursive_directory_iterator(root))
            if (e.is_regular_file() || e.is_symlink()) out.push_back(e.path().lexically_relative(bundle_dir).string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// MD5 over names and contents, as 16 hex digits: the tag changes exactly when the host's files do.
std::string content_hash(const std::string &install_dir, const std::vector<std::string> &files, const std::string &base) {
    Poco::MD5Engine md5;
    Poco::DigestOutputStream out(md5);
    out << base << '\n';
    for (const auto &f : files) {
        out << f << '\n';
        std::ifstream in(install_dir + "/" + f, std::ios::binary);
        out << in.rdbuf();
    }
    out.flush();
    return Poco::DigestEngine::digestToHex(md5.digest()).substr(0, 16);
}

std::string lowercase_tag_part(std::string s) {
    for (auto &c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    return s;
}

// tar -czf of the build directory: Dockerfile + actionhost/<files>.
std::string build_context(const BuildSettings &s, const std::vector<std::string> &files) {
    const ScopedTempDir scratch("ah-remote-build-");
    const std::string &dir = scratch.path();
    std::ofstream(dir + "/Dockerfile") << "FROM " << s.base_image << "\nCOPY actionhost " << kInstallInImage
                                       << "\nCOPY micromamba " << fs::path(kInstallInImage).parent_path().string() << "/micromamba\n";
    std::ofstream list(dir + "/files");
    for (const auto &f : files) list << f << '\n';
    list.close();
    SpawnOptions tar;
    tar.argv = {"/usr/bin/env", "tar", "-czf", dir + "/context.tar.gz", "-C", dir, "Dockerfile", "-C", s.bundle_dir,
                "--no-recursion", "-T", dir + "/files"};
    tar.env = process_environment();
    tar.log_path = dir + "/tar.log";
    pid_t pid = spawn_process(tar);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    for (int i = 0; i < 600000; ++i) {
        if (auto st = try_reap(pid)) {
            if (!WIFEXITED(*st) || WEXITSTATUS(*st) != 0)
                throw std::runtime_error("tar of the build context failed: " + file_tail(tar.log_path));
            std::ifstream in(dir + "/context.tar.gz", std::ios::binary);
            std::ostringstream bytes;
            bytes << in.rdbuf();
            return bytes.str();
        }
        if (std::chrono::steady_clock::now() > deadline) {
            stop_process_group(pid, 1);
            throw Timeout("tar of the build context took more than 5 minutes");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw Timeout("tar of the build context did not finish");
}

bool image_exists(RemoteApi &api, const std::string &image) {
    json r = api.expect("GET", "/image_exists?image=" + url_encode(image), nullptr, "image_exists", 60);
    return r.value("exists", false);
}

}  // namespace

std::string ensure_runtime_image(RemoteApi &api, const BuildSettings &s, const std::function<void(const std::string &)> &progress) {
    if (s.base_image.empty()) throw std::runtime_error("no image: set sandbox.runtime_container_image or sandbox.base_container_image");
    json prefix = api.expect("GET", "/registry_prefix", nullptr, "registry_prefix");
    std::string registry = prefix.value("registry_prefix", "");
    if (registry.empty()) throw RemoteApiError("Remote Runtime API: /registry_prefix gave no registry_prefix", 200);
    while (!registry.empty() && registry.back() == '/') registry.pop_back();
    auto files = image_files(s.bundle_dir);
    if (files.empty()) throw std::runtime_error("no host bundle in " + s.bundle_dir);
    std::string tag = registry + "/runtime:ah_v" + lowercase_tag_part(s.version) + "_" + content_hash(s.bundle_dir, files, s.base_image);
    if (!s.force_rebuild && image_exists(api, tag)) return tag;

    progress("building " + tag + " from " + s.base_image);
    Poco::Net::HTMLForm form;
    form.setEncoding(Poco::Net::HTMLForm::ENCODING_MULTIPART);
    form.add("target_image", tag);
    form.add("tags", tag);
    form.addPart("context", new Poco::Net::StringPartSource(actionhost::common::base64_encode(build_context(s, files)), "application/octet-stream", "context.tar.gz"));
    std::ostringstream body;
    form.write(body);
    ApiReply r = api.call("POST", "/build", body.str(), "multipart/form-data; boundary=" + form.boundary(), 30);
    if (r.status < 200 || r.status >= 300 || !r.json.is_object())
        throw RemoteApiError("Remote Runtime API: build of " + tag + " was refused with HTTP " + std::to_string(r.status) + ": " + detail_of(r.body), r.status);
    std::string build_id = r.json.value("build_id", "");
    if (build_id.empty()) throw RemoteApiError("Remote Runtime API: /build answered no build_id", r.status);

    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(s.timeout_s);
    for (int i = 0; i < 100000; ++i) {
        json st = api.expect("GET", "/build_status?build_id=" + url_encode(build_id), nullptr, "build_status", 60);
        std::string status = st.value("status", "");
        if (status == "SUCCESS") break;
        if (status == "FAILURE" || status == "INTERNAL_ERROR" || status == "TIMEOUT" || status == "CANCELLED" || status == "EXPIRED")
            throw std::runtime_error("Build of " + tag + " ended with " + status + ": " + st.value("error", "no error given"));
        if (std::chrono::steady_clock::now() >= deadline)
            throw Timeout("Build of " + tag + " did not finish within " + std::to_string(static_cast<int>(s.timeout_s)) + " s");
        progress("build " + build_id + ": " + (status.empty() ? "waiting" : status));
        std::this_thread::sleep_for(std::chrono::duration<double>(s.poll_interval_s));
    }
    if (!image_exists(api, tag)) throw std::runtime_error("Build of " + tag + " succeeded but the image does not exist");
    return tag;
}

}  // namespace remote
