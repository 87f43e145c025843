#include "actionhost/runtime_support/owned_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "actionhost/runtime_support/process.hpp"
#include "actionhost/runtime_support/remove_tree.hpp"

namespace actionhost::runtime_support {

namespace {

constexpr const char *kLockName = "owner.lock";
constexpr time_t kUnlockedGraceS = 60;

}  // namespace

OwnedDir make_owned_temp_dir(const std::string &prefix) {
    OwnedDir d;
    d.path = make_temp_dir(prefix);
    const std::string pending = d.path + "/.owner.lock.new", lock = d.path + "/" + kLockName;
    d.lock_fd = ::open(pending.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (d.lock_fd < 0 || ::flock(d.lock_fd, LOCK_EX | LOCK_NB) != 0 || ::rename(pending.c_str(), lock.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        if (d.lock_fd >= 0) ::close(d.lock_fd);
        remove_tree(d.path);
        throw std::runtime_error("cannot lock the temporary directory " + d.path + ": " + why);
    }
    return d;
}

DirOwner dir_owner(const std::string &dir, int *taken) {
    const int fd = ::open((dir + "/" + kLockName).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return DirOwner::Unknown;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return errno == EWOULDBLOCK ? DirOwner::Alive : DirOwner::Unknown;
    }
    if (taken) *taken = fd;
    else ::close(fd);
    return DirOwner::Gone;
}

size_t sweep_abandoned_dirs(const std::string &prefix, const std::function<void(const std::string &)> &on_gone) {
    const std::string root = temp_root();
    DIR *d = ::opendir(root.c_str());
    if (d == nullptr) return 0;
    std::vector<std::string> candidates;
    for (dirent *e = ::readdir(d); e != nullptr; e = ::readdir(d))
        if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) candidates.push_back(root + "/" + e->d_name);
    ::closedir(d);
    size_t removed = 0;
    const time_t now = std::time(nullptr);
    for (const auto &path : candidates) {
        struct stat st{};
        // Only our own real directories: another user's are theirs to judge, and a link is no directory.
        if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
        int lock = -1;
        const DirOwner owner = dir_owner(path, &lock);
        if (owner == DirOwner::Alive) continue;
        if (owner == DirOwner::Unknown && (::access((path + "/" + kLockName).c_str(), F_OK) == 0 || now - st.st_mtime < kUnlockedGraceS))
            continue;
        if (on_gone) on_gone(path);
        if (remove_tree(path)) ++removed;
        if (lock >= 0) ::close(lock);
    }
    return removed;
}

}  // namespace actionhost::runtime_support
