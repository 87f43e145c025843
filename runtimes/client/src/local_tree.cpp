#include "local_tree.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <actionhost/common/archive/zip_reader.hpp>
#include <actionhost/common/open_without_links.hpp>
#include <actionhost/common/trusted_path.hpp>

#include "actionhost/client/errors.hpp"

namespace actionhost::client::detail {

namespace fs = std::filesystem;
using common::io::UniqueFd;

namespace {

[[noreturn]] void refuse(const std::string &what) { throw WireError(what); }

UniqueFd open_beneath(int dir_fd, const std::string &relative, int flags) {
    open_how how{};
    how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return UniqueFd(static_cast<int>(::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof how)));
}

const char *kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISDIR(mode)) return "a directory";
    return "not a regular file";
}

// What `relative` beneath `dir_fd` is, links inside followed, without opening it for reading (O_PATH
// opens nothing: a FIFO is not waited on, a device's driver is not called).
struct stat status_beneath(int dir_fd, const std::string &relative, const std::string &shown) {
    UniqueFd target = open_beneath(dir_fd, relative, O_PATH);
    if (!target && errno == EXDEV)
        refuse("Refusing to copy " + shown + ": it is a symbolic link that leads out of the copied directory; nothing was copied");
    if (!target) refuse("Cannot read " + shown + ": " + std::strerror(errno));
    struct stat st{};
    if (::fstat(target.get(), &st) != 0) refuse("Cannot read " + shown + ": " + std::strerror(errno));
    return st;
}

// Opens a regular file beneath `dir_fd` for reading; O_NONBLOCK so that a FIFO swapped in after the
// check above still cannot hold the copy, and the check repeated on what was opened.
UniqueFd read_beneath(int dir_fd, const std::string &relative, const std::string &shown) {
    UniqueFd fd = open_beneath(dir_fd, relative, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!fd && errno == EXDEV)
        refuse("Refusing to copy " + shown + ": it is a symbolic link that leads out of the copied directory; nothing was copied");
    if (!fd) refuse("Cannot read " + shown + ": " + std::strerror(errno));
    struct stat st{};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) refuse("Cannot copy " + shown + ": not a regular file");
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
    return fd;
}

// The directory `relative` below `root_fd`, entered component by component without following links,
// created where missing.
UniqueFd enter_dirs(int root_fd, const fs::path &relative, const std::string &root) {
    UniqueFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    fs::path walked;
    for (const auto &part : relative) {
        const std::string name = part.string();
        if (name.empty() || name == ".") continue;
        if (name == "..") refuse("Refusing an entry outside " + root + ": " + relative.string());
        walked /= part;
        if (::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
            refuse("Cannot create " + (fs::path(root) / walked).string() + ": " + std::strerror(errno));
        UniqueFd next(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next)
            refuse("Refusing to write through " + (fs::path(root) / walked).string() + ": " +
                   (errno == ELOOP || errno == ENOTDIR ? std::string("it is a symbolic link or not a directory") : std::strerror(errno)));
        dir = std::move(next);
    }
    return dir;
}

// The directory of the named local path `path`, opened: links on the way followed only when they are
// root's or the caller's (common/trusted_path.hpp), and the path's own last name never a link — in a
// sandbox's workspace the agent may have planted it, and in an idmapped workspace the agent's links are
// the owner's on disk, so their owner says nothing. With `create`, what is missing is made, each
// directory in its parent opened without following links.
UniqueFd open_named_dir(const std::string &path, bool create) {
    fs::path p = fs::absolute(path).lexically_normal();
    if (p.filename().empty() && p.has_relative_path()) p = p.parent_path();  // "/a/b/" → "/a/b"
    if (!p.has_relative_path()) {
        UniqueFd top(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!top) refuse(std::string("Cannot open the directory /: ") + std::strerror(errno));
        return top;
    }
    auto parent = common::resolve_through_trusted_links(p.parent_path().string(), "the local path " + path);
    if (!parent) refuse(parent.error().message);
    UniqueFd top(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!top) refuse(std::string("Cannot open the directory /: ") + std::strerror(errno));
    const fs::path rel = fs::path(parent.value()).relative_path();
    UniqueFd dir;
    if (create) {
        dir = enter_dirs(top.get(), rel, "/");
    } else {
        dir.reset(common::open_without_links(top.get(), rel.empty() ? "." : rel.string(), O_RDONLY | O_DIRECTORY));
        if (!dir) refuse("Cannot open the directory " + parent.value() + ": " + std::strerror(errno));
    }
    const std::string name = p.filename().string();
    struct stat st{};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        refuse("Refusing " + path + ": it is a symbolic link (in a sandbox's workspace the agent may have planted it); "
               "name the directory it leads to");
    if (create && ::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
        refuse("Cannot create " + p.string() + ": " + std::strerror(errno));
    UniqueFd out(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!out)
        refuse("Cannot open the directory " + path + ": " +
               (errno == ELOOP ? std::string("it is a symbolic link") : std::strerror(errno)));
    return out;
}

UniqueFd open_root(const std::string &root) { return open_named_dir(root, true); }

// Where an entry of a copy goes: the root and the entry's directory held open (each entered without
// following a link), its own name (checked), and its path as messages show it.
struct EntryPlace {
    UniqueFd root_fd, dir;
    std::string name, shown;
};
EntryPlace place_of(const std::string &root, const std::string &relative) {
    const fs::path rel(relative);
    EntryPlace at;
    at.root_fd = open_root(root);
    at.dir = enter_dirs(at.root_fd.get(), rel.parent_path(), root);
    at.name = rel.filename().string();
    at.shown = (fs::path(root) / rel).string();
    if (at.name.empty() || at.name == "." || at.name == "..") refuse("Refusing the entry " + relative);
    return at;
}

bool all_zero(std::string_view piece) {
    return std::all_of(piece.begin(), piece.end(), [](char c) { return c == '\0'; });
}

}  // namespace

LocalTree scan_local_tree(const std::string &dir) {
    LocalTree tree;
    tree.path = dir;
    tree.root = open_named_dir(dir, false);
    std::error_code ec;
    // The iterator never descends through a directory link; links are copied as links (below).
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string rel = it->path().lexically_relative(dir).generic_string();
        const auto status = it->symlink_status(ec);
        if (ec) break;
        struct stat own{};
        if (::fstatat(tree.root.get(), rel.c_str(), &own, AT_SYMLINK_NOFOLLOW) != 0)
            refuse("Cannot read " + it->path().string() + ": " + std::strerror(errno));
        if (fs::is_directory(status)) {
            tree.entries.push_back({rel, true, false, {}, static_cast<uint32_t>(own.st_mode & 07777), own.st_mtime});
            continue;
        }
        if (fs::is_symlink(status)) {
            std::string target(4096, '\0');
            const ssize_t n = ::readlinkat(tree.root.get(), rel.c_str(), target.data(), target.size());
            if (n <= 0 || static_cast<size_t>(n) >= target.size()) {
                tree.skipped.push_back(it->path().string() + ": a symbolic link that cannot be read, not copied");
                continue;
            }
            target.resize(static_cast<size_t>(n));
            // By its text, then as the kernel resolves it beneath the tree (through the tree's other links).
            bool inside = common::archive::link_stays_inside(rel, target);
            if (inside) {
                UniqueFd resolved = open_beneath(tree.root.get(), rel, O_PATH);
                inside = resolved || errno != EXDEV;
            }
            if (!inside) {
                tree.skipped.push_back(it->path().string() + ": a symbolic link to '" + target +
                                       "', which leads out of the copied directory, not copied");
                continue;
            }
            tree.entries.push_back({rel, false, true, target, static_cast<uint32_t>(own.st_mode & 07777), own.st_mtime});
            continue;
        }
        if (fs::is_regular_file(status)) {
            tree.entries.push_back({rel, false, false, {}, static_cast<uint32_t>(own.st_mode & 07777), own.st_mtime});
            continue;
        }
        tree.skipped.push_back(it->path().string() + ": " + kind_of(own.st_mode) + ", not copied");
    }
    if (ec) refuse("Cannot read the directory " + dir + ": " + ec.message());
    return tree;
}

UniqueFd open_local_entry(const LocalTree &tree, const std::string &name) {
    return read_beneath(tree.root.get(), name, (fs::path(tree.path) / name).string());
}

UniqueFd open_local_file(const std::string &file, std::string &skipped) {
    const fs::path p = fs::absolute(file).lexically_normal();
    auto dir = common::resolve_through_trusted_links(p.parent_path().string(), "the local path " + file);
    if (!dir) refuse(dir.error().message);
    UniqueFd parent(common::open_without_links(AT_FDCWD, dir.value(), O_RDONLY | O_DIRECTORY));
    if (!parent) refuse("Cannot open the directory of " + file + ": " + std::strerror(errno));
    const struct stat st = status_beneath(parent.get(), p.filename().string(), file);
    if (!S_ISREG(st.st_mode)) {
        skipped = file + ": " + kind_of(st.st_mode) + ", not copied";
        return UniqueFd();
    }
    return read_beneath(parent.get(), p.filename().string(), file);
}

UniqueFd open_local_file_for_writing(const std::string &root, const std::string &relative, std::string &skipped) {
    EntryPlace at = place_of(root, relative);
    const UniqueFd &dir = at.dir;
    const std::string &name = at.name, &shown = at.shown;
    struct stat st{};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        skipped = shown + ": " + kind_of(st.st_mode) + " is there, not overwritten";
        return UniqueFd();
    }
    // O_NONBLOCK: a FIFO put there since the look above fails (ENXIO) or opens without waiting.
    UniqueFd out(::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644));
    if (!out && errno == ENXIO) {
        skipped = shown + ": a FIFO or socket is there, not overwritten";
        return UniqueFd();
    }
    if (!out)
        refuse("Refusing to write " + shown + ": " + (errno == ELOOP ? std::string("it is a symbolic link") : std::strerror(errno)));
    if (::fstat(out.get(), &st) != 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        skipped = shown + ": " + kind_of(st.st_mode) + " is there, not overwritten";
        return UniqueFd();
    }
    if (st.st_nlink > 1) refuse("Refusing to write " + shown + ": it has other hard links, which would change too");
    ::fcntl(out.get(), F_SETFL, ::fcntl(out.get(), F_GETFL) & ~O_NONBLOCK);
    if (::ftruncate(out.get(), 0) != 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
    return out;
}

void write_piece(int fd, std::string_view piece, const std::string &shown) {
    if (all_zero(piece)) {
        if (::lseek(fd, static_cast<off_t>(piece.size()), SEEK_CUR) < 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
        return;
    }
    for (size_t done = 0; done < piece.size();) {
        const ssize_t n = ::write(fd, piece.data() + done, piece.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

void finish_file(int fd, uint64_t size, const std::string &shown) {
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
}

void remove_local_file(const std::string &root, const std::string &relative) noexcept {
    try {
        UniqueFd dir = open_named_dir(root, false);
        const fs::path rel(relative);
        for (const auto &part : rel.parent_path()) {
            const std::string name = part.string();
            if (name.empty() || name == ".") continue;
            if (name == "..") return;
            UniqueFd next(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!next) return;  // gone, or a link now: nothing of ours to remove behind it
            dir = std::move(next);
        }
        const std::string name = rel.filename().string();
        struct stat st{};
        if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            ::unlinkat(dir.get(), name.c_str(), 0);
    } catch (const std::exception &) {
        // The root itself is gone or a link now: nothing of ours to remove.
    }
}

void make_local_dir(const std::string &root, const std::string &relative) {
    UniqueFd root_fd = open_root(root);
    enter_dirs(root_fd.get(), fs::path(relative), root);
}

void set_local_dir_attributes(const std::string &root, const std::string &relative, const std::optional<uint32_t> &mode,
                              const std::optional<int64_t> &mtime) {
    UniqueFd root_fd = open_root(root);
    UniqueFd dir = enter_dirs(root_fd.get(), fs::path(relative), root);
    const std::string shown = (fs::path(root) / relative).string();
    if (mode && ::fchmod(dir.get(), *mode & 0777) != 0) refuse("Cannot set the mode of " + shown + ": " + std::strerror(errno));
    if (mtime) {
        const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(*mtime), 0}};
        if (::futimens(dir.get(), times) != 0) refuse("Cannot set the time of " + shown + ": " + std::strerror(errno));
    }
}

bool make_local_link(const std::string &root, const std::string &relative, const std::string &target,
                     const std::optional<int64_t> &mtime, std::string &skipped) {
    EntryPlace at = place_of(root, relative);
    const UniqueFd &root_fd = at.root_fd, &dir = at.dir;
    const std::string &name = at.name, &shown = at.shown;
    struct stat st{};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            skipped = shown + ": " + kind_of(st.st_mode) + " is there, not replaced by a symbolic link";
            return false;
        }
        if (::unlinkat(dir.get(), name.c_str(), 0) != 0 && errno != ENOENT)
            refuse("Cannot replace " + shown + ": " + std::strerror(errno));
    }
    if (::symlinkat(target.c_str(), dir.get(), name.c_str()) != 0)
        refuse("Cannot create the symbolic link " + shown + ": " + std::strerror(errno));
    UniqueFd resolved = open_beneath(root_fd.get(), relative, O_PATH);
    if (!resolved && errno == EXDEV) {
        ::unlinkat(dir.get(), name.c_str(), 0);
        skipped = shown + ": a symbolic link to '" + target + "', which leads out of " + root + " through other links, not created";
        return false;
    }
    if (mtime) {
        const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(*mtime), 0}};
        ::utimensat(dir.get(), name.c_str(), times, AT_SYMLINK_NOFOLLOW);
    }
    return true;
}

bool keep_local_link_if_inside(const std::string &root, const std::string &relative, std::string &skipped) {
    EntryPlace at = place_of(root, relative);
    UniqueFd resolved = open_beneath(at.root_fd.get(), relative, O_PATH);
    if (resolved || errno != EXDEV) return true;  // inside, or leading nowhere (dangling)
    struct stat st{};
    if (::fstatat(at.dir.get(), at.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        ::unlinkat(at.dir.get(), at.name.c_str(), 0);
    skipped = at.shown + ": a symbolic link leading out of " + root + " through a link made after it, removed";
    return false;
}

}  // namespace actionhost::client::detail
