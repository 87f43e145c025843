#include "images/layer_unpacker.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::client::images {

using common::io::UniqueFd;

namespace {

constexpr uint64_t kIdRange = 65536;
constexpr const char *kWhiteoutPrefix = ".wh.";
constexpr const char *kOpaqueMarker = ".wh..wh..opq";

struct ArchiveCloser {
    void operator()(archive *a) const { archive_read_free(a); }
};

// An entry's path split into its components, or why it is refused. "./a/b", "/a/b" and "a//b/" are
// "a", "b"; ".." anywhere refuses the layer.
common::Result<std::vector<std::string>> components_of(const std::string &raw) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= raw.size()) {
        size_t slash = raw.find('/', start);
        if (slash == std::string::npos) slash = raw.size();
        const std::string part = raw.substr(start, slash - start);
        if (part == "..") return common::fail("the layer names '" + raw + "', which leaves the layer");
        if (!part.empty() && part != ".") parts.push_back(part);
        start = slash + 1;
    }
    return parts;
}

std::string joined(const std::vector<std::string> &parts, size_t count) {
    std::string out;
    for (size_t i = 0; i < count; ++i) out += (i ? "/" : "") + parts[i];
    return out;
}

// The failure of the last system call, with its errno.
auto fail_errno(const std::string &what) { return common::fail(what + ": " + std::strerror(errno), errno); }

struct DirFixup {
    std::string path;  // relative to the layer
    mode_t mode;
    uid_t uid;
    gid_t gid;
    timespec mtime;
};

class Unpacker {
  public:
    Unpacker(const std::string &dir, const UnpackPolicy &policy, UnpackReport &report)
        : dir_(dir), policy_(policy), report_(report), root_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) {}

    common::Status run(archive *a) {
        if (!root_) return fail_errno("cannot open " + dir_);
        archive_entry *entry = nullptr;
        for (;;) {
            const int r = archive_read_next_header(a, &entry);
            if (r == ARCHIVE_EOF) break;
            if (r != ARCHIVE_OK && r != ARCHIVE_WARN) return common::fail(std::string("the layer cannot be read: ") + archive_error_string(a));
            if (++report_.entries > policy_.max_entries)
                return common::fail("the layer has more than " + std::to_string(policy_.max_entries) + " entries");
            if (auto placed = place(a, entry); !placed) return placed;
        }
        return fix_directories();
    }

  private:
    void note(const std::string &line) {
        if (report_.notes.size() < 20) report_.notes.push_back(line);
        else ++report_.notes_left_out;
    }

    uid_t owner_uid(int64_t id) const {
        if (!policy_.map_owners) return static_cast<uid_t>(-1);
        return static_cast<uid_t>(policy_.uid_base + (id >= 0 && static_cast<uint64_t>(id) < kIdRange ? static_cast<uint64_t>(id) : 65534));
    }
    gid_t owner_gid(int64_t id) const {
        if (!policy_.map_owners) return static_cast<gid_t>(-1);
        return static_cast<gid_t>(policy_.gid_base + (id >= 0 && static_cast<uint64_t>(id) < kIdRange ? static_cast<uint64_t>(id) : 65534));
    }
    mode_t permitted_mode(mode_t mode) const { return mode & (policy_.map_owners ? 07777 : 01777); }

    // The directory holding `parts[0..count)`, walked from the layer's root without following a link,
    // each missing directory created (0755, fixed up if an entry names it later).
    common::Result<UniqueFd> directory(const std::vector<std::string> &parts, size_t count, const std::string &shown) {
        UniqueFd dir(::fcntl(root_.get(), F_DUPFD_CLOEXEC, 0));
        for (size_t i = 0; i < count; ++i) {
            const char *name = parts[i].c_str();
            if (::mkdirat(dir.get(), name, 0755) == 0 && policy_.map_owners)
                (void)!::fchownat(dir.get(), name, owner_uid(0), owner_gid(0), AT_SYMLINK_NOFOLLOW);
            UniqueFd next(::openat(dir.get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!next) {
                if (errno == ELOOP || errno == ENOTDIR)
                    return common::fail("the layer's entry '" + shown + "' passes through '" + joined(parts, i + 1) +
                                        "', which is a link or not a directory: refused");
                return fail_errno("cannot enter " + joined(parts, i + 1));
            }
            dir = std::move(next);
        }
        return dir;
    }

    // Makes room for a new entry `name` in `dir`: anything but a directory there goes.
    common::Status clear(int dir, const std::string &name, const std::string &shown, bool keep_directory) {
        struct stat st{};
        if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return common::ok();
        if (S_ISDIR(st.st_mode)) {
            if (keep_directory) return common::ok();
            return common::fail("the layer replaces the directory '" + shown + "' with another kind of entry: refused");
        }
        if (::unlinkat(dir, name.c_str(), 0) != 0) return fail_errno("cannot replace " + shown);
        return common::ok();
    }

    common::Status whiteout(int dir, const std::string &name, const std::string &shown) {
        if (name.empty() || name == "." || name == "..") return common::fail("the layer has a malformed whiteout '" + shown + "'");
        struct stat st{};
        if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
            // The same layer made it first: nothing below to hide it from; the entry itself goes.
            if (S_ISDIR(st.st_mode)) return common::fail("the layer whites out its own directory '" + shown + "': refused");
            if (::unlinkat(dir, name.c_str(), 0) != 0) return fail_errno("cannot white out " + shown);
        }
        if (::mknodat(dir, name.c_str(), S_IFCHR | 0000, ::makedev(0, 0)) != 0) return fail_errno("cannot white out " + shown);
        if (policy_.map_owners) (void)!::fchownat(dir, name.c_str(), owner_uid(0), owner_gid(0), AT_SYMLINK_NOFOLLOW);
        return common::ok();
    }

    void copy_attributes(archive_entry *entry, int fd, const std::string &shown) {
        archive_entry_xattr_reset(entry);
        const char *name = nullptr;
        const void *value = nullptr;
        size_t size = 0;
        while (archive_entry_xattr_next(entry, &name, &value, &size) == ARCHIVE_OK) {
            const std::string n = name != nullptr ? name : "";
            if (n.rfind("user.", 0) == 0 && n.rfind("user.overlay.", 0) != 0) {
                if (::fsetxattr(fd, n.c_str(), value, size, 0) != 0) note(shown + ": attribute " + n + " not kept (" + std::strerror(errno) + ")");
            } else {
                note(shown + ": attribute " + n + " dropped (it would be the machine's, not the sandbox's)");
            }
        }
    }

    common::Status regular_file(archive *a, archive_entry *entry, int dir, const std::string &name, const std::string &shown) {
        const int64_t logical = archive_entry_size(entry);
        if (logical < 0 || static_cast<uint64_t>(logical) > policy_.max_file_size)
            return common::fail("the layer's file '" + shown + "' is " + std::to_string(logical) + " bytes, past the limit of " +
                                std::to_string(policy_.max_file_size));
        if (auto cleared = clear(dir, name, shown, false); !cleared) return cleared;
        UniqueFd fd(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!fd) return fail_errno("cannot create " + shown);
        const void *buf = nullptr;
        size_t size = 0;
        la_int64_t offset = 0;
        for (;;) {
            const int r = archive_read_data_block(a, &buf, &size, &offset);
            if (r == ARCHIVE_EOF) break;
            if (r != ARCHIVE_OK && r != ARCHIVE_WARN) return common::fail("the layer's file '" + shown + "' cannot be read: " + archive_error_string(a));
            report_.bytes += size;
            if (report_.bytes > policy_.max_bytes)
                return common::fail("the layer unpacks to more than " + std::to_string(policy_.max_bytes) + " bytes: refused");
            if (offset < 0 || static_cast<uint64_t>(offset) + size > static_cast<uint64_t>(logical))
                return common::fail("the layer's file '" + shown + "' holds data past its size");
            const auto *bytes = static_cast<const char *>(buf);
            if (std::all_of(bytes, bytes + size, [](char c) { return c == '\0'; })) continue;  // a hole
            for (size_t done = 0; done < size;) {
                const ssize_t n = ::pwrite(fd.get(), bytes + done, size - done, static_cast<off_t>(offset) + static_cast<off_t>(done));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) return fail_errno("cannot write " + shown);
                done += static_cast<size_t>(n);
            }
        }
        if (::ftruncate(fd.get(), static_cast<off_t>(logical)) != 0) return fail_errno("cannot write " + shown);
        copy_attributes(entry, fd.get(), shown);
        if (policy_.map_owners &&
            ::fchown(fd.get(), owner_uid(archive_entry_uid(entry)), owner_gid(archive_entry_gid(entry))) != 0)
            return fail_errno("cannot give " + shown + " its owner");
        if (::fchmod(fd.get(), permitted_mode(archive_entry_perm(entry))) != 0) return fail_errno("cannot set the mode of " + shown);
        const timespec times[2] = {{archive_entry_mtime(entry), 0}, {archive_entry_mtime(entry), 0}};
        ::futimens(fd.get(), times);
        return common::ok();
    }

    common::Status place(archive *a, archive_entry *entry) {
        const char *raw_name = archive_entry_pathname(entry);
        if (raw_name == nullptr) return common::fail("the layer has an entry without a name");
        auto split = components_of(raw_name);
        if (!split) return split.as_failure();
        const std::vector<std::string> &parts = split.value();
        if (parts.empty()) return common::ok();  // the layer's own root ("./")
        const std::string shown = joined(parts, parts.size());
        const std::string &name = parts.back();
        auto parent = directory(parts, parts.size() - 1, shown);
        if (!parent) return parent.as_failure();
        const int dir = parent.value().get();

        if (name == kOpaqueMarker) {
            if (::fsetxattr(dir, "user.overlay.opaque", "y", 1, 0) != 0) return fail_errno("cannot mark " + shown + " opaque");
            return common::ok();
        }
        if (name.rfind(kWhiteoutPrefix, 0) == 0) return whiteout(dir, name.substr(std::strlen(kWhiteoutPrefix)), shown);

        if (const char *target = archive_entry_hardlink(entry)) {
            auto target_parts = components_of(target);
            if (!target_parts) return target_parts.as_failure();
            const auto &tp = target_parts.value();
            if (tp.empty()) return common::fail("the layer's hard link '" + shown + "' names no file");
            auto target_dir = directory(tp, tp.size() - 1, joined(tp, tp.size()));
            if (!target_dir) return target_dir.as_failure();
            struct stat st{};
            if (::fstatat(target_dir.value().get(), tp.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
                return common::fail("the layer's hard link '" + shown + "' names '" + joined(tp, tp.size()) +
                                    "', which is not a file of this layer: refused");
            if (auto cleared = clear(dir, name, shown, false); !cleared) return cleared;
            if (::linkat(target_dir.value().get(), tp.back().c_str(), dir, name.c_str(), 0) != 0) return fail_errno("cannot link " + shown);
            return common::ok();
        }

        const mode_t type = archive_entry_filetype(entry);
        const uid_t uid = owner_uid(archive_entry_uid(entry));
        const gid_t gid = owner_gid(archive_entry_gid(entry));
        switch (type) {
            case AE_IFREG: return regular_file(a, entry, dir, name, shown);
            case AE_IFDIR: {
                if (auto cleared = clear(dir, name, shown, true); !cleared) return cleared;
                if (::mkdirat(dir, name.c_str(), 0700) != 0 && errno != EEXIST) return fail_errno("cannot create " + shown);
                UniqueFd d(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
                if (d) copy_attributes(entry, d.get(), shown);
                dirs_.push_back({shown, permitted_mode(archive_entry_perm(entry)), uid, gid, {archive_entry_mtime(entry), 0}});
                return common::ok();
            }
            case AE_IFLNK: {
                const char *target = archive_entry_symlink(entry);
                if (target == nullptr) return common::fail("the layer's link '" + shown + "' has no target");
                if (auto cleared = clear(dir, name, shown, false); !cleared) return cleared;
                if (::symlinkat(target, dir, name.c_str()) != 0) return fail_errno("cannot create the link " + shown);
                if (policy_.map_owners) (void)!::fchownat(dir, name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW);
                const timespec times[2] = {{archive_entry_mtime(entry), 0}, {archive_entry_mtime(entry), 0}};
                ::utimensat(dir, name.c_str(), times, AT_SYMLINK_NOFOLLOW);
                return common::ok();
            }
            case AE_IFIFO: {
                if (auto cleared = clear(dir, name, shown, false); !cleared) return cleared;
                if (::mkfifoat(dir, name.c_str(), 0600) != 0) return fail_errno("cannot create the FIFO " + shown);
                if (policy_.map_owners) (void)!::fchownat(dir, name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW);
                ::fchmodat(dir, name.c_str(), archive_entry_perm(entry) & 0777, 0);
                return common::ok();
            }
            case AE_IFCHR:
                // A 0:0 character device is already a whiteout in overlay's form.
                if (archive_entry_rdevmajor(entry) == 0 && archive_entry_rdevminor(entry) == 0) return whiteout(dir, name, shown);
                note(shown + ": a device node, skipped");
                return common::ok();
            default:
                note(shown + ": " + (type == AE_IFBLK ? "a device node" : "a socket") + ", skipped");
                return common::ok();
        }
    }

    // Directories get their modes, owners and times last, deepest first: a read-only directory of the
    // layer is filled before it becomes read-only.
    common::Status fix_directories() {
        std::sort(dirs_.begin(), dirs_.end(), [](const DirFixup &a, const DirFixup &b) { return a.path.size() > b.path.size(); });
        for (const auto &d : dirs_) {
            auto split = components_of(d.path);
            auto parent = directory(split.value(), split.value().size() - 1, d.path);
            if (!parent) return parent.as_failure();
            UniqueFd fd(::openat(parent.value().get(), split.value().back().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!fd) continue;  // replaced by a later entry
            if (policy_.map_owners && ::fchown(fd.get(), d.uid, d.gid) != 0) return fail_errno("cannot give " + d.path + " its owner");
            if (::fchmod(fd.get(), d.mode) != 0) return fail_errno("cannot set the mode of " + d.path);
            const timespec times[2] = {d.mtime, d.mtime};
            ::futimens(fd.get(), times);
        }
        return common::ok();
    }

    std::string dir_;
    const UnpackPolicy &policy_;
    UnpackReport &report_;
    UniqueFd root_;
    std::vector<DirFixup> dirs_;
};

}  // namespace

common::Status unpack_layer(const std::string &archive_path, const std::string &dir, const UnpackPolicy &policy,
                            UnpackReport &report) {
    std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
    if (!a) return common::fail("cannot start libarchive");
    archive_read_support_filter_all(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
        return common::fail(std::string("the layer cannot be opened: ") + archive_error_string(a.get()));
    Unpacker unpacker(dir, policy, report);
    return unpacker.run(a.get());
}

}  // namespace actionhost::client::images
