#include "actionhost/runtime_support/owned_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <thread>

#include "actionhost/runtime_support/process.hpp"
#include "actionhost/runtime_support/remove_tree.hpp"

namespace actionhost::runtime_support {

namespace {

constexpr const char *kLockName = "owner.lock";
constexpr const char *kClientLockName = "client.lock";
constexpr const char *kReleasedName = "released";
constexpr time_t kStagingGraceS = 60;
constexpr auto kOwnerEndingWait = std::chrono::seconds(5);

// <dir>/<name>, created and locked. -1 on failure.
int make_locked_file(const std::string &dir, const std::string &name) {
    const int fd = ::open((dir + "/" + name).c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    const int e = errno;
    if (fd >= 0) ::close(fd);
    errno = e;
    return -1;
}

bool older_than(const struct stat &st, time_t seconds) { return std::time(nullptr) - st.st_mtime > seconds; }

// Alive, Gone (then `taken`, when given, holds the lock) or Unknown, for the lock file <dir>/<name>.
DirOwner lock_state(const std::string &dir, const char *name, int *taken) {
    const int fd = ::open((dir + "/" + name).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return DirOwner::Unknown;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return errno == EWOULDBLOCK ? DirOwner::Alive : DirOwner::Unknown;
    }
    if (taken) *taken = fd;
    else ::close(fd);
    return DirOwner::Gone;
}

// The owner lives, but its client died before releasing the directory: the owner is ending.
bool owner_is_ending(const std::string &dir) {
    return ::access((dir + "/" + kReleasedName).c_str(), F_OK) != 0 && lock_state(dir, kClientLockName, nullptr) == DirOwner::Gone;
}

}  // namespace

OwnedDir make_owned_temp_dir(const std::string &prefix, bool for_client) {
    // Made as .<prefix>XXXXXX with its locks inside, then renamed to <prefix>XXXXXX: a directory of that
    // name always has its lock, whenever its creator dies. (One dying between mkdtemp and the rename
    // leaves an empty hidden staging directory, which a sweep removes once it is a minute old.)
    for (int attempt = 0; attempt < 100; ++attempt) {
        OwnedDir d;
        const std::string staging = make_temp_dir("." + prefix);
        d.lock_fd = make_locked_file(staging, kLockName);
        if (d.lock_fd >= 0 && for_client) d.client_fd = make_locked_file(staging, kClientLockName);
        if (d.lock_fd < 0 || (for_client && d.client_fd < 0)) {
            const std::string why = std::strerror(errno);
            if (d.lock_fd >= 0) ::close(d.lock_fd);
            remove_tree(staging);
            throw std::runtime_error("cannot lock the temporary directory " + staging + ": " + why);
        }
        d.path = temp_root() + "/" + prefix + staging.substr(staging.size() - 6);
        if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, d.path.c_str(), RENAME_NOREPLACE) == 0) return d;
        const int e = errno;
        ::close(d.lock_fd);
        if (d.client_fd >= 0) ::close(d.client_fd);
        remove_tree(staging);
        if (e != EEXIST) throw std::runtime_error("cannot create the temporary directory " + d.path + ": " + std::strerror(e));
    }
    throw std::runtime_error("cannot create a temporary directory " + temp_root() + "/" + prefix + "XXXXXX");
}

void release_to_owner(const std::string &dir, int &client_fd) {
    const int fd = ::open((dir + "/" + kReleasedName).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) ::close(fd);
    if (client_fd >= 0) ::close(client_fd);
    client_fd = -1;
}

DirOwner dir_owner(const std::string &dir, int *taken) {
    return lock_state(dir, kLockName, taken);
}

size_t sweep_abandoned_dirs(const std::string &prefix, const std::function<void(const std::string &)> &on_gone) {
    const std::string root = temp_root();
    DIR *d = ::opendir(root.c_str());
    if (d == nullptr) return 0;
    const std::string staging = "." + prefix;
    std::vector<std::string> candidates, stagings;
    for (dirent *e = ::readdir(d); e != nullptr; e = ::readdir(d)) {
        if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) candidates.push_back(root + "/" + e->d_name);
        if (std::strncmp(e->d_name, staging.c_str(), staging.size()) == 0) stagings.push_back(root + "/" + e->d_name);
    }
    ::closedir(d);
    size_t removed = 0;
    // Only our own real directories: another user's are theirs to judge, and a link is no directory.
    auto ours = [](const std::string &path, struct stat &st) {
        return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
    };
    for (const auto &path : stagings) {
        struct stat st{};
        if (ours(path, st) && older_than(st, kStagingGraceS) && dir_owner(path) != DirOwner::Alive && remove_tree(path)) ++removed;
    }
    for (const auto &path : candidates) {
        struct stat st{};
        if (!ours(path, st)) continue;
        int lock = -1;
        DirOwner owner = dir_owner(path, &lock);
        if (owner == DirOwner::Alive && owner_is_ending(path)) {
            const auto deadline = std::chrono::steady_clock::now() + kOwnerEndingWait;
            while ((owner = dir_owner(path, &lock)) == DirOwner::Alive && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        // Unknown: no lock (a directory of a version without them, which may well be in use) — not ours to judge.
        if (owner != DirOwner::Gone) continue;
        if (on_gone) on_gone(path);
        if (remove_tree(path)) ++removed;
        if (lock >= 0) ::close(lock);
    }
    return removed;
}

}  // namespace actionhost::runtime_support
