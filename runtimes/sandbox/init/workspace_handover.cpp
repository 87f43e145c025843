#include "workspace_handover.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <functional>
#include <map>
#include <vector>

#include "id_map.hpp"

namespace sandbox {

namespace {

bool foreign_to_the_sandbox(unsigned long id, unsigned long base) { return id != 0 && (id < base || id >= base + kIdRangeSize); }

// The new owner of an entry, or (-1, -1) when it stays as it is.
struct NewOwner {
    uid_t uid = static_cast<uid_t>(-1);
    gid_t gid = static_cast<gid_t>(-1);
    bool changes() const { return uid != static_cast<uid_t>(-1) || gid != static_cast<gid_t>(-1); }
};

NewOwner new_owner(const struct stat &st, const Handover &h) {
    NewOwner o;
    // A file with several names may also be the machine's file under another name (a hard link):
    // changing its owner would change that file's. It stays as it is.
    if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) return o;
    if (!foreign_to_the_sandbox(st.st_uid, h.uid_base) && st.st_uid != h.uid) o.uid = h.uid;
    if (!foreign_to_the_sandbox(st.st_gid, h.gid_base) && st.st_gid != h.gid) o.gid = h.gid;
    return o;
}

// The mount an entry is on (statx STATX_MNT_ID, Linux 5.8): a bind mount from the same file system has
// the same st_dev, so only the mount id tells a mount point (of a directory or a single file) apart.
bool mount_id_of(int dir_fd, const char *name, uint64_t *id) {
    struct statx sx{};
    if (::statx(dir_fd, name, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0) return false;
    if (!(sx.stx_mask & STATX_MNT_ID)) return false;
    *id = sx.stx_mnt_id;
    return true;
}

// Every entry below the directory `top_fd` is open on (which the walk takes and closes) that is on the
// mount `mount_id`, handed to `visit(dir_fd, name, stat, relative path)`. Every step is relative to an
// open directory, never a path: a directory swapped for a symbolic link while the walk runs cannot lead
// it out of the workspace (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW). Nothing on another mount (a mount point
// inside the workspace, of a directory or a file) is visited or entered. Bounded: ten million directories.
void walk_one_mount(int top_fd, uint64_t mount_id,
                    const std::function<void(int, const char *, const struct stat &, const std::string &)> &visit) {
    std::vector<std::pair<int, std::string>> pending = {{top_fd, ""}};
    for (size_t visited = 0; !pending.empty() && visited < 10'000'000; ++visited) {
        auto [dir_fd, prefix] = pending.back();
        pending.pop_back();
        DIR *dir = ::fdopendir(dir_fd);
        if (dir == nullptr) {
            ::close(dir_fd);
            continue;
        }
        for (dirent *e = ::readdir(dir); e != nullptr; e = ::readdir(dir)) {
            if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
            struct stat st{};
            uint64_t mount = 0;
            if (::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (!mount_id_of(dir_fd, e->d_name, &mount) || mount != mount_id) continue;  // another mount: not ours
            visit(dir_fd, e->d_name, st, prefix + e->d_name);
            if (!S_ISDIR(st.st_mode)) continue;
            const int sub = ::openat(dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) pending.emplace_back(sub, prefix + e->d_name + "/");
        }
        ::closedir(dir);  // closes dir_fd
    }
    for (auto &[fd, prefix] : pending) ::close(fd);
}

long hand_over_below(int top_fd, uint64_t mount_id, const Handover &h) {
    long changed = 0;
    walk_one_mount(top_fd, mount_id, [&](int dir_fd, const char *name, const struct stat &st, const std::string &) {
        const NewOwner o = new_owner(st, h);
        // fchownat keeps the mode; the kernel clears set-user/group-id bits on a new owner, as wanted.
        if (o.changes() && ::fchownat(dir_fd, name, o.uid, o.gid, AT_SYMLINK_NOFOLLOW) == 0) ++changed;
    });
    return changed;
}

}  // namespace

std::string reason_not_to_map(int dir_fd) {
    const int top = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    uint64_t mount_id = 0;
    if (top < 0 || !mount_id_of(top, "", &mount_id)) {
        if (top >= 0) ::close(top);
        return "it cannot be walked";
    }
    std::string reason;
    std::map<std::pair<dev_t, ino_t>, std::pair<nlink_t, nlink_t>> linked;  // → (names seen, names it has)
    std::map<std::pair<dev_t, ino_t>, std::string> names;
    walk_one_mount(top, mount_id, [&](int dir_fd, const char *name, const struct stat &st, const std::string &path) {
        if (S_ISDIR(st.st_mode)) return;
        // What the machine's root owns and a mapping would hand over with its privilege: a set-user/
        // group-ID file, a file with capabilities (the sandbox's root could rewrite either and keep it).
        if (reason.empty() && S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID))) reason = "its file " + path + " is set-user/group-ID";
        if (reason.empty() && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
            const std::string via = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + name;
            if (::lgetxattr(via.c_str(), "security.capability", nullptr, 0) >= 0) reason = "its file " + path + " has file capabilities";
        }
        if (st.st_nlink < 2) return;
        auto &seen = linked[{st.st_dev, st.st_ino}];
        seen.first += 1;
        seen.second = st.st_nlink;
        names.emplace(std::make_pair(st.st_dev, st.st_ino), path);
    });
    if (!reason.empty()) return reason;
    for (const auto &[key, seen] : linked)
        if (seen.first < seen.second) return "its file " + names[key] + " has a hard link outside it";
    return "";
}

bool needs_handover(uid_t owner_uid, gid_t owner_gid, const Handover &h) {
    return (!foreign_to_the_sandbox(owner_uid, h.uid_base) && owner_uid != h.uid) ||
           (!foreign_to_the_sandbox(owner_gid, h.gid_base) && owner_gid != h.gid);
}

long hand_over_tree(int dir_fd, const std::string &dir, const Handover &h) {
    // A description of its own: the walk reads the directory and closes what it read with.
    const int top = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0) throw std::runtime_error("cannot open the workspace " + dir + ": " + std::strerror(errno));
    struct stat st{};
    if (::fstat(top, &st) != 0) {
        ::close(top);
        throw std::runtime_error("cannot read the workspace " + dir + ": " + std::strerror(errno));
    }
    uint64_t mount = 0;
    if (!mount_id_of(top, "", &mount)) {
        ::close(top);
        throw std::runtime_error("cannot tell which mount the workspace " + dir + " is on (needs Linux 5.8 or later)");
    }
    NewOwner o = new_owner(st, h);
    // The workspace's group becomes the sandbox's group inside: a system group (postgres, docker, adm)
    // on a workspace that root hands over must not come with it.
    if (o.uid != static_cast<uid_t>(-1) && st.st_gid != h.gid) o.gid = h.gid;
    if (o.changes() && ::fchown(top, o.uid, o.gid) != 0) {
        const int e = errno;
        ::close(top);
        throw std::runtime_error("cannot hand the workspace " + dir + " to the sandbox's user: " + std::strerror(e));
    }
    return (o.changes() ? 1 : 0) + hand_over_below(top, mount, h);  // takes `top`
}

}  // namespace sandbox
