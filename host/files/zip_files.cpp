#include "files/zip_files.hpp"

#include <actionhost/common/archive/zip_reader.hpp>

#include <actionhost/common/archive/zip_writer.hpp>
#include <actionhost/common/io/unique_fd.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>
#include <actionhost/common/random.hpp>

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

using common::archive::ZipEntryKind;
using common::io::UniqueFd;

std::string staging_name() { return ".ahupload." + common::random_hex(8); }

// The directory `relative` below `root_fd`, each component created where missing and entered without
// following a link (O_NOFOLLOW): nothing is ever written through a link, the archive's or one swapped in.
common::Result<UniqueFd> enter_dirs(int root_fd, const fs::path &relative) {
    UniqueFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    for (const auto &part : relative) {
        const std::string name = part.string();
        if (name.empty() || name == ".") continue;
        if (::mkdirat(dir.get(), name.c_str(), 0777) != 0 && errno != EEXIST)
            return common::fail("cannot create the directory " + relative.string() + ": " + std::strerror(errno));
        UniqueFd next(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next)
            return common::fail("refusing to write through " + relative.string() + ": " +
                                (errno == ELOOP || errno == ENOTDIR ? std::string("a component is a symbolic link or not a directory")
                                                                    : std::string(std::strerror(errno))));
        dir = std::move(next);
    }
    return dir;
}

timespec as_timespec(int64_t seconds) { return timespec{static_cast<time_t>(seconds), 0}; }

// `relative` below `root_fd`, every directory on the way entered and the last name opened with O_NOFOLLOW
// (openat2 is refused inside sandboxes, where the host runs: common/syscall_policy).
UniqueFd open_no_links(int root_fd, const fs::path &relative, int flags) {
    UniqueFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    for (const auto &part : relative.parent_path()) {
        const std::string name = part.string();
        if (name.empty() || name == ".") continue;
        UniqueFd next(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next) return next;
        dir = std::move(next);
    }
    return UniqueFd(::openat(dir.get(), relative.filename().c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
}

// Whether the link at `relative` below `root`, followed as the kernel would (through the links already
// there, 40 of them at most, as ELOOP), stays below `root`. A missing name ends the look-up on the disk;
// the rest is judged by its text. (openat2's RESOLVE_BENEATH is refused inside sandboxes.)
bool resolves_inside(const fs::path &root, const std::string &relative) {
    std::vector<std::string> todo;  // components still to walk, the next one last
    auto push_path = [&](const std::string &path) {
        std::vector<std::string> parts;
        for (size_t start = 0; start <= path.size();) {
            size_t slash = path.find('/', start);
            if (slash == std::string::npos) slash = path.size();
            parts.push_back(path.substr(start, slash - start));
            start = slash + 1;
        }
        todo.insert(todo.end(), parts.rbegin(), parts.rend());
    };
    push_path(relative);
    std::vector<std::string> at;
    bool on_disk = true;
    int links = 0;
    // Bounded: every round takes one component; at most 40 links add theirs (4096 bytes each at most).
    while (!todo.empty()) {
        const std::string part = todo.back();
        todo.pop_back();
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (at.empty()) return false;
            at.pop_back();
            continue;
        }
        at.push_back(part);
        if (!on_disk) continue;
        fs::path here = root;
        for (const auto &a : at) here /= a;
        struct stat st{};
        if (::lstat(here.c_str(), &st) != 0) {
            on_disk = false;
            continue;
        }
        if (!S_ISLNK(st.st_mode)) continue;
        if (++links > 40) return true;  // a loop: the kernel answers ELOOP, nothing is reached
        std::string target(4096, '\0');
        const ssize_t n = ::readlink(here.c_str(), target.data(), target.size());
        if (n <= 0 || static_cast<size_t>(n) >= target.size()) return false;
        target.resize(static_cast<size_t>(n));
        if (target[0] == '/') return false;
        at.pop_back();
        push_path(target);
    }
    return true;
}


// Moves everything below `from` into `to`, merging directories and replacing files.
void merge_into(const fs::path &from, const fs::path &to) {
    for (const auto &e : fs::directory_iterator(from)) {
        const fs::path target = to / e.path().filename();
        if (e.is_directory() && !e.is_symlink()) {
            std::error_code ec;
            if (fs::is_directory(target, ec) && !fs::is_symlink(target, ec)) {
                merge_into(e.path(), target);
                continue;
            }
            if (fs::exists(fs::symlink_status(target, ec))) fs::remove_all(target);
        } else {
            std::error_code ec;
            if (fs::is_directory(fs::symlink_status(target, ec))) fs::remove_all(target);
        }
        fs::rename(e.path(), target);
    }
}

// A directory entry's permission bits and time, applied once everything is in place (a file created in a
// directory afterwards would change its time; a directory without write permission could not be filled).
struct DirectoryAttributes {
    fs::path relative;
    std::optional<uint32_t> mode;
    std::optional<int64_t> mtime;
};

// Each directory reached below `dest` without following a link (one swapped in since is not changed),
// deepest first. Best effort: the contents are in place already, and a directory gone meanwhile is the
// agent's doing.
void apply_directory_attributes(const std::string &dest, std::vector<DirectoryAttributes> dirs) {
    UniqueFd dest_fd(::open(dest.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dest_fd) return;
    auto depth = [](const fs::path &p) { return std::distance(p.begin(), p.end()); };
    std::stable_sort(dirs.begin(), dirs.end(), [&](const auto &a, const auto &b) { return depth(a.relative) > depth(b.relative); });
    for (const auto &dir : dirs) {
        UniqueFd fd = open_no_links(dest_fd.get(), dir.relative, O_RDONLY | O_DIRECTORY);
        if (!fd) continue;
        if (dir.mode) ::fchmod(fd.get(), *dir.mode);
        if (dir.mtime) {
            const timespec times[2] = {{0, UTIME_OMIT}, as_timespec(*dir.mtime)};
            ::futimens(fd.get(), times);
        }
    }
}

}  // namespace

common::Status unzip_safely(const std::string &zip_path, const std::string &dest, const UnzipLimits &limits,
                            const std::optional<FileOwner> &owner) {
    auto opened = common::archive::ZipReader::open(zip_path, {limits.max_total_bytes, limits.max_entries});
    if (!opened) return opened.as_failure();
    common::archive::ZipReader &zip = *opened.value();

    // What is never created, and links that lead out by their text: refused before anything is written.
    std::vector<std::string> targets(zip.entries().size());
    for (size_t i = 0; i < zip.entries().size(); ++i) {
        const auto &entry = zip.entries()[i];
        if (entry.kind == ZipEntryKind::other)
            return common::fail("entry '" + entry.name + "' is a device, FIFO or socket (mode " + std::to_string(entry.raw_mode) +
                                "), which is never created");
        if (entry.kind != ZipEntryKind::symlink) continue;
        auto target = zip.read_link(i);
        if (!target) return target.as_failure();
        if (!common::archive::link_stays_inside(entry.name, target.value()))
            return common::fail("entry '" + entry.name + "' is a symbolic link to '" + target.value() +
                                "', which leads out of the destination");
        targets[i] = std::move(target).value();
    }

    const fs::path stage = fs::path(dest) / staging_name();
    if (::mkdir(stage.c_str(), 0700) != 0)
        return common::fail("cannot create a staging directory in " + dest + ": " + std::strerror(errno));
    auto refuse = [&](const std::string &why) {
        std::error_code ignore;
        fs::remove_all(stage, ignore);
        return common::fail(why);
    };
    UniqueFd stage_fd(::open(stage.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!stage_fd) return refuse("cannot open the staging directory in " + dest + ": " + std::strerror(errno));
    std::vector<DirectoryAttributes> directories;  // applied after the merge (the destination itself never)
    try {
        // Directories and files first, links last: no entry is ever written through a link of the archive.
        for (size_t i = 0; i < zip.entries().size(); ++i) {
            const auto &entry = zip.entries()[i];
            if (entry.kind == ZipEntryKind::symlink) continue;
            const fs::path rel = fs::path(entry.name).lexically_normal();
            if (entry.directory) {
                auto made = enter_dirs(stage_fd.get(), rel);
                if (!made) return refuse(made.error().message);
                const fs::path dir = rel.has_filename() ? rel : rel.parent_path();  // "a/b/" → "a/b"
                if (!dir.empty() && dir != "." && (entry.mode || entry.mtime)) directories.push_back({dir, entry.mode, entry.mtime});
                continue;
            }
            auto dir = enter_dirs(stage_fd.get(), rel.parent_path());
            if (!dir) return refuse(dir.error().message);
            const std::string name = rel.filename().string();
            UniqueFd out(::openat(dir.value().get(), name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666));
            if (!out) return refuse("cannot write " + entry.name + ": " + std::strerror(errno));
            auto unpacked = zip.read(i, [&](std::string_view piece) -> common::Status {
                for (size_t done = 0; done < piece.size();) {
                    const ssize_t n = ::write(out.get(), piece.data() + done, piece.size() - done);
                    if (n < 0 && errno == EINTR) continue;
                    if (n <= 0) return common::fail("cannot write " + entry.name + ": " + std::strerror(errno));
                    done += static_cast<size_t>(n);
                }
                return common::ok();
            });
            if (!unpacked) return refuse(unpacked.error().message);
            // The archive's permission bits (masked to 0777 by the reader), else the umask's default.
            if (entry.mode && ::fchmod(out.get(), *entry.mode) != 0)
                return refuse("cannot set the mode of " + entry.name + ": " + std::strerror(errno));
            if (entry.mtime) {
                const timespec times[2] = {{0, UTIME_OMIT}, as_timespec(*entry.mtime)};
                ::futimens(out.get(), times);
            }
        }
        for (size_t i = 0; i < zip.entries().size(); ++i) {
            const auto &entry = zip.entries()[i];
            if (entry.kind != ZipEntryKind::symlink) continue;
            const fs::path rel = fs::path(entry.name).lexically_normal();
            auto dir = enter_dirs(stage_fd.get(), rel.parent_path());
            if (!dir) return refuse(dir.error().message);
            const std::string name = rel.filename().string();
            if (::symlinkat(targets[i].c_str(), dir.value().get(), name.c_str()) != 0)
                return refuse("cannot create the symbolic link " + entry.name + ": " +
                              (errno == EEXIST ? std::string("the archive puts something else at that name too") : std::strerror(errno)));
            if (entry.mtime) {
                const timespec times[2] = {{0, UTIME_OMIT}, as_timespec(*entry.mtime)};
                ::utimensat(dir.value().get(), name.c_str(), times, AT_SYMLINK_NOFOLLOW);
            }
        }
        // Through links, a link's text may lead out after all (`x/l -> ..`, then `m -> x/l/..`): each is
        // followed beneath the staging directory now, as the kernel would; one that leaves it refuses all.
        for (size_t i = 0; i < zip.entries().size(); ++i) {
            const auto &entry = zip.entries()[i];
            if (entry.kind != ZipEntryKind::symlink) continue;
            if (!resolves_inside(stage, fs::path(entry.name).lexically_normal().string()))
                return refuse("entry '" + entry.name + "' is a symbolic link to '" + targets[i] +
                              "', which leads out of the destination through other links");
        }
        if (owner) {
            // Everything staged is this upload's own (made just now, links never followed).
            for (auto it = fs::recursive_directory_iterator(stage); it != fs::recursive_directory_iterator(); ++it)
                if (::lchown(it->path().c_str(), owner->uid, owner->gid) != 0)
                    return refuse("cannot give " + it->path().string() + " to the sandbox's user: " + std::strerror(errno));
        }
        merge_into(stage, dest);
        apply_directory_attributes(dest, std::move(directories));
    } catch (const std::exception &e) {
        return refuse(std::string("cannot unpack the archive: ") + e.what());
    }
    std::error_code ec;
    fs::remove_all(stage, ec);
    return common::ok();
}

common::Status zip_tree(const std::string &root, const std::string &zip_path) {
    auto created = common::archive::ZipWriter::create(zip_path);
    if (!created) return created.as_failure();
    common::archive::ZipWriter &zip = *created.value();
    std::error_code ec;
    struct stat root_st{};
    if (::lstat(root.c_str(), &root_st) == 0 && S_ISDIR(root_st.st_mode)) {
        UniqueFd root_fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!root_fd) return common::fail("cannot open " + root + ": " + std::strerror(errno));
        std::vector<std::string> names;
        for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) break;
            // Regular files and links (as links: a link is never followed, so nothing outside `root` is
            // read); directories as entries of their own, so that their modes, times and emptiness travel
            // (OpenHands' archive has files only; zip readers, Python's zipfile too, take both); FIFOs,
            // sockets and devices left out.
            const auto status = it->symlink_status(ec);
            if (ec) break;
            if (fs::is_regular_file(status) || fs::is_symlink(status) || fs::is_directory(status))
                names.push_back(it->path().lexically_relative(root).generic_string());
        }
        std::sort(names.begin(), names.end());
        for (const auto &name : names) {
            struct stat st{};
            if (::fstatat(root_fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
            const common::archive::ZipEntryAttributes attributes{static_cast<uint32_t>(st.st_mode & 07777),
                                                                 static_cast<int64_t>(st.st_mtime)};
            if (S_ISDIR(st.st_mode)) {
                if (auto added = zip.add_directory(name + "/", attributes); !added) return added;
                continue;
            }
            if (S_ISLNK(st.st_mode)) {
                std::string target(4096, '\0');
                // readlinkat beneath the root's descriptor, the link's directory reached without links.
                const fs::path rel(name);
                UniqueFd dir(rel.has_parent_path() ? open_no_links(root_fd.get(), rel.parent_path(), O_RDONLY | O_DIRECTORY)
                                                   : UniqueFd(::fcntl(root_fd.get(), F_DUPFD_CLOEXEC, 0)));
                if (!dir) continue;
                const ssize_t n = ::readlinkat(dir.get(), rel.filename().c_str(), target.data(), target.size());
                if (n <= 0 || static_cast<size_t>(n) >= target.size()) continue;
                target.resize(static_cast<size_t>(n));
                if (auto added = zip.add_symlink(name, target, attributes); !added) return added;
                continue;
            }
            // Never through a link swapped in since the walk; a FIFO put there is not waited on.
            UniqueFd in = open_no_links(root_fd.get(), fs::path(name), O_RDONLY | O_NONBLOCK | O_NOCTTY);
            struct stat opened{};
            if (!in || ::fstat(in.get(), &opened) != 0 || !S_ISREG(opened.st_mode)) continue;  // unreadable: left out
            ::fcntl(in.get(), F_SETFL, ::fcntl(in.get(), F_GETFL) & ~O_NONBLOCK);
            if (auto added = zip.add_file(name, in.get(), attributes); !added) return added;
        }
    }
    return zip.close();
}

}  // namespace actionhost::host
