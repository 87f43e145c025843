#include "http/files_api.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/common/user_entry.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/result.hpp>
#include <actionhost/common/text.hpp>

#include "files/file_roots.hpp"
#include "files/zip_files.hpp"
#include "http/responses.hpp"
#include "http/upload_receiver.hpp"

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

using common::ascii_lower;

// The upload's destination directory, reached from / one name at a time without trusting what the agent
// could have planted: a symbolic link is followed only when it belongs to the host's own user (the
// image's /lib -> usr/lib, /var/run -> /run), never one of another user's (the agent's `/workspace/out ->
// /root`); missing directories are made (and handed to `owner`) on the way. The directory is then used
// through /proc/self/fd/N, so no later step resolves the path again (a directory renamed and replaced by
// a link meanwhile redirects nothing).
common::Result<common::io::UniqueFd> open_destination(const std::string &destination, const std::optional<FileOwner> &owner) {
    // The names still to enter, from / (lexically normal: no ".", ".." only where a link put it).
    auto normal = [](const std::vector<std::string> &parts) {
        std::vector<std::string> out;
        for (const auto &p : parts) {
            if (p.empty() || p == ".") continue;
            if (p == "..") {
                if (!out.empty()) out.pop_back();
                continue;
            }
            out.push_back(p);
        }
        return out;
    };
    std::vector<std::string> names;
    for (const auto &part : fs::path(destination).relative_path()) names.push_back(part.string());
    if (std::find(names.begin(), names.end(), "..") != names.end())
        return common::fail("Destination " + destination + " must not contain ..");
    names = normal(names);
    auto root = [] { return common::io::UniqueFd(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)); };
    common::io::UniqueFd dir = root();
    if (!dir) return common::fail(std::string("cannot open /: ") + std::strerror(errno));
    std::vector<std::string> walked;  // entered so far: directories, never links
    int links_followed = 0;
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string &name = names[i];
        const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        common::io::UniqueFd next(::openat(dir.get(), name.c_str(), flags));
        if (!next && errno == ENOENT) {
            if (::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
                return common::fail("Destination " + destination + " cannot be created: " + std::strerror(errno));
            if (owner) ::fchownat(dir.get(), name.c_str(), owner->uid, owner->gid, AT_SYMLINK_NOFOLLOW);
            next = common::io::UniqueFd(::openat(dir.get(), name.c_str(), flags));
        }
        if (next) {
            dir = std::move(next);
            walked.push_back(name);
            continue;
        }
        struct stat st {};
        const bool link = (errno == ELOOP || errno == ENOTDIR) &&
                          ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
        if (!link) return common::fail("Destination " + destination + " is not a directory and cannot be created");
        if (st.st_uid != ::geteuid())
            return common::fail("Destination " + destination + " goes through " + name +
                                ", a symbolic link of another user: nothing was written");
        char target[4096];
        const ssize_t n = ::readlinkat(dir.get(), name.c_str(), target, sizeof target - 1);
        if (n <= 0 || ++links_followed > 40)
            return common::fail("Destination " + destination + ": cannot follow the link " + name);
        target[n] = '\0';
        // Start again from /: what was entered (directories only, so `..` is lexical), the link's text
        // (from / when absolute), then the names after the link.
        std::vector<std::string> again = target[0] == '/' ? std::vector<std::string>{} : walked;
        for (const auto &part : fs::path(target).relative_path()) again.push_back(part.string());
        again.insert(again.end(), names.begin() + static_cast<long>(i) + 1, names.end());
        names = normal(again);
        dir = root();
        walked.clear();
        i = static_cast<size_t>(-1);  // the loop's ++ makes it 0
    }
    return dir;
}

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
    auto opened = open_destination(destination, owner);
    if (!opened) return {400, {{"detail", opened.error().message}}};
    const common::io::UniqueFd dest_fd = std::move(opened).value();
    const std::string held = "/proc/self/fd/" + std::to_string(dest_fd.get());  // the directory, not its path
    ReceivedUpload part;
    if (auto received = receive_upload(req.header("Content-Type"), req.body(), held, max_bytes, part); !received)
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
        auto unpacked = unzip_safely(part.temp, held, UnzipLimits{.max_total_bytes = max_unzip_bytes}, owner);
        if (!unpacked) return {400, {{"detail", "Upload refused, nothing was unpacked: " + unpacked.error().message}}};
    } else {
        const std::string target = held + "/" + filename;
        if (fs::is_directory(fs::symlink_status(target, ec)))
            return {400, {{"detail", "Cannot upload over the directory " + destination + "/" + filename}}};
        if (owner && ::lchown(part.temp.c_str(), owner->uid, owner->gid) != 0)
            return {500, {{"detail", "Cannot give the upload to the sandbox's user: " + std::string(std::strerror(errno))}}};
        if (::rename(part.temp.c_str(), target.c_str()) != 0)
            return {500, {{"detail", "Cannot place the upload at " + destination + "/" + filename}}};
        part.kept = true;
    }
    return {200, {{"filename", part.filename}, {"destination", destination}, {"recursive", recursive}}};
}

int send_download(Response &resp, const std::string &path) {
    auto refuse = [&resp](int status, const std::string &detail) {
        send_detail(resp, status, detail);
        return status;
    };
    if (path.empty() || path[0] != '/') return refuse(500, "400: Path must be an absolute path");
    if (auto allowed = file_access(path); !allowed) return refuse(403, allowed.error().message);
    std::error_code ec;
    if (!fs::exists(path, ec)) return refuse(500, "404: File not found");
    char tmpl[] = "/tmp/ahdownload-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) return refuse(500, "Cannot create a temporary archive");
    ::close(fd);
    const std::string zip_path = tmpl;
    if (auto zipped = zip_tree(path, zip_path); !zipped) {
        ::unlink(zip_path.c_str());
        return refuse(500, zipped.error().message);
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
    return 200;
}

}  // namespace actionhost::host
