#include "http/files_api.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/common/user_entry.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <actionhost/common/text.hpp>

#include "files/file_roots.hpp"
#include "files/zip_files.hpp"
#include "http/responses.hpp"
#include "http/upload_receiver.hpp"

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

using common::ascii_lower;

// One entry of a detailed listing, from lstat: a link is described, not followed.
nlohmann::json describe_entry(const fs::path &entry, const std::string &name) {
    struct stat st {};
    if (::lstat(entry.c_str(), &st) != 0) return {{"name", name}, {"type", "other"}, {"size", 0}, {"mode", 0}, {"mtime", 0}};
    const char *type = S_ISDIR(st.st_mode) ? "dir" : S_ISREG(st.st_mode) ? "file" : S_ISLNK(st.st_mode) ? "symlink" : "other";
    return {{"name", name},
            {"type", type},
            {"size", static_cast<uint64_t>(st.st_size)},
            {"mode", static_cast<unsigned>(st.st_mode & 07777)},
            {"mtime", static_cast<int64_t>(st.st_mtim.tv_sec)}};
}

}  // namespace

nlohmann::json list_directory(const std::string &working_dir, const std::optional<std::string> &path, bool detail) {
    fs::path full = !path ? fs::path(working_dir) : (!path->empty() && (*path)[0] == '/') ? fs::path(*path)
                                                                                          : fs::path(working_dir) / *path;
    std::error_code ec;
    if (!fs::is_directory(full, ec)) return nlohmann::json::array();
    std::vector<std::string> dirs, files;
    for (const auto &e : fs::directory_iterator(full, ec)) {
        const std::string name = e.path().filename().string();
        std::error_code ec2;
        if (fs::is_directory(e.path(), ec2)) dirs.push_back(name + "/");
        else files.push_back(name);
    }
    if (ec) return nlohmann::json::array();
    auto by_lower = [](const std::string &a, const std::string &b) { return ascii_lower(a) < ascii_lower(b); };
    std::stable_sort(dirs.begin(), dirs.end(), by_lower);
    std::stable_sort(files.begin(), files.end(), by_lower);
    nlohmann::json out = nlohmann::json::array();
    for (auto *names : {&dirs, &files})
        for (auto &n : *names) {
            if (!detail) {
                out.push_back(n);
                continue;
            }
            const std::string bare = n.back() == '/' ? n.substr(0, n.size() - 1) : n;
            out.push_back(describe_entry(full / bare, bare));
        }
    return out;
}

std::optional<FileOwner> upload_owner(const std::string &username) {
    if (::geteuid() != 0 || username.empty()) return std::nullopt;
    const auto user = common::user_by_name(username);
    if (!user || user->uid == 0) return std::nullopt;
    return FileOwner{user->uid, user->gid};
}

UploadResult handle_upload(Request &req, const std::string &destination, bool recursive,
                           uint64_t max_bytes, uint64_t max_unzip_bytes, const std::optional<FileOwner> &owner) {
    if (destination.empty() || destination[0] != '/')
        return {500, {{"detail", "400: Destination must be an absolute path"}}};
    if (auto allowed = file_access(destination); !allowed) return {403, {{"detail", allowed.error().message}}};
    std::error_code ec;
    // The directories this upload creates are the owner's too (the first missing one and those below it).
    fs::path first_missing;
    for (fs::path p = fs::path(destination).lexically_normal(); p.has_relative_path(); p = p.parent_path()) {
        if (fs::exists(fs::symlink_status(p, ec))) break;
        first_missing = p;
    }
    fs::create_directories(destination, ec);
    if (owner && !first_missing.empty() && fs::is_directory(fs::symlink_status(first_missing, ec))) {
        for (fs::path p = fs::path(destination).lexically_normal();; p = p.parent_path()) {
            ::lchown(p.c_str(), owner->uid, owner->gid);
            if (p == first_missing || !p.has_relative_path()) break;
        }
    }
    if (!fs::is_directory(destination, ec))
        return {400, {{"detail", "Destination " + destination + " is not a directory and cannot be created"}}};
    ReceivedUpload part;
    if (auto received = receive_upload(req.header("Content-Type"), req.body(), destination, max_bytes, part); !received)
        return {422, {{"detail", "Invalid request parameters"}, {"errors", received.error().message}}};
    if (part.too_large) return {413, {{"detail", "Upload too large: the limit is " + std::to_string(max_bytes) + " bytes"}}};
    if (!part.error.empty()) return {500, {{"detail", part.error}}};
    if (part.temp.empty()) return {422, {{"detail", "Invalid request parameters"}, {"errors", "the multipart field \"file\" is required"}}};
    // Only the base name counts: a client cannot steer the file out of its destination.
    std::string filename = fs::path(part.filename).filename().string();
    if (filename.empty() || filename == "." || filename == "..")
        return {422, {{"detail", "Invalid request parameters"}, {"errors", "the uploaded file needs a file name"}}};
    const std::string lowered = ascii_lower(filename);
    const bool is_zip = lowered.size() >= 4 && lowered.substr(lowered.size() - 4) == ".zip";
    if (recursive && !is_zip) return {500, {{"detail", "400: Recursive uploads must be zip files"}}};
    if (is_zip) {
        auto unpacked = unzip_safely(part.temp, destination, UnzipLimits{.max_total_bytes = max_unzip_bytes}, owner);
        if (!unpacked) return {400, {{"detail", "Upload refused, nothing was unpacked: " + unpacked.error().message}}};
    } else {
        const std::string target = destination + "/" + filename;
        if (fs::is_directory(fs::symlink_status(target, ec)))
            return {400, {{"detail", "Cannot upload over the directory " + target}}};
        if (owner && ::lchown(part.temp.c_str(), owner->uid, owner->gid) != 0)
            return {500, {{"detail", "Cannot give the upload to the sandbox's user: " + std::string(std::strerror(errno))}}};
        if (::rename(part.temp.c_str(), target.c_str()) != 0)
            return {500, {{"detail", "Cannot place the upload at " + target}}};
        part.kept = true;
    }
    return {200, {{"filename", part.filename}, {"destination", destination}, {"recursive", recursive}}};
}

void send_download(Response &resp, const std::string &path) {
    if (path.empty() || path[0] != '/') return send_detail(resp, 500, "400: Path must be an absolute path");
    if (auto allowed = file_access(path); !allowed) return send_detail(resp, 403, allowed.error().message);
    std::error_code ec;
    if (!fs::exists(path, ec)) return send_detail(resp, 500, "404: File not found");
    char tmpl[] = "/tmp/ahdownload-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) return send_detail(resp, 500, "Cannot create a temporary archive");
    ::close(fd);
    const std::string zip_path = tmpl;
    if (auto zipped = zip_tree(path, zip_path); !zipped) {
        ::unlink(zip_path.c_str());
        return send_detail(resp, 500, zipped.error().message);
    }
    std::string base = fs::path(path).filename().string();
    if (base.empty()) base = fs::path(path).parent_path().filename().string();
    resp.set_header("Content-Disposition", common::http::attachment_disposition(base + ".zip"));
    // Unlinked as soon as it is open: nothing is left behind whatever happens while it is sent.
    struct Unlink {
        const std::string &path;
        ~Unlink() { ::unlink(path.c_str()); }
    } unlink_after{zip_path};
    resp.send_file(200, "application/zip", zip_path);
}

}  // namespace actionhost::host
