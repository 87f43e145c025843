#include "mount_ops.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace sandbox {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

uint64_t mount_attr_bits(unsigned attrs) {
    uint64_t bits = 0;
    if (attrs & kReadOnly) bits |= MOUNT_ATTR_RDONLY;
    if (attrs & kNoSuid) bits |= MOUNT_ATTR_NOSUID;
    if (attrs & kNoDev) bits |= MOUNT_ATTR_NODEV;
    if (attrs & kNoExec) bits |= MOUNT_ATTR_NOEXEC;
    return bits;
}

void apply(int fd, unsigned attrs, const std::string &what) {
    if (attrs == 0) return;
    struct mount_attr attr {};
    attr.attr_set = mount_attr_bits(attrs);
    if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) == 0) return;
    // Some locked submounts of the machine's trees refuse nodev/noexec changes; read-only is what matters.
    attr.attr_set = mount_attr_bits(attrs & kReadOnly);
    if (attr.attr_set == 0 || mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
        fail("mount_setattr " + what);
}

}  // namespace

DetachedMount &DetachedMount::operator=(DetachedMount &&o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

DetachedMount::~DetachedMount() {
    if (fd_ >= 0) ::close(fd_);
}

DetachedMount clone_tree(const std::string &path, unsigned attrs) {
    int fd = open_tree(AT_FDCWD, path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd < 0) fail("open_tree " + path);
    DetachedMount m(fd);
    apply(fd, attrs, path);
    return m;
}

DetachedMount clone_tree_of(int dir_fd, const std::string &path, unsigned attrs) {
    int fd = open_tree(dir_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
    if (fd < 0) fail("open_tree " + path);
    DetachedMount m(fd);
    apply(fd, attrs, path);
    return m;
}

DetachedMount clone_subtree(const DetachedMount &of, const std::string &relative, unsigned attrs) {
    int fd = open_tree(of.fd(), relative.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd < 0) fail("open_tree " + relative);
    DetachedMount m(fd);
    apply(fd, attrs, relative);
    return m;
}

DetachedMount new_filesystem(const std::string &type, const std::vector<std::pair<std::string, std::string>> &options,
                             unsigned attrs) {
    const int fs_fd = fsopen(type.c_str(), FSOPEN_CLOEXEC);
    if (fs_fd < 0) fail("fsopen " + type);
    auto close_fs = [fs_fd] {
        const int e = errno;
        ::close(fs_fd);
        errno = e;
    };
    for (const auto &[key, value] : options) {
        const int rc = value.empty() ? fsconfig(fs_fd, FSCONFIG_SET_FLAG, key.c_str(), nullptr, 0)
                                     : fsconfig(fs_fd, FSCONFIG_SET_STRING, key.c_str(), value.c_str(), 0);
        if (rc < 0) {
            close_fs();
            fail(type + " option " + key + (value.empty() ? "" : "=" + value));
        }
    }
    if (fsconfig(fs_fd, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) < 0) {
        close_fs();
        fail("create " + type);
    }
    const int fd = fsmount(fs_fd, FSMOUNT_CLOEXEC, static_cast<unsigned>(mount_attr_bits(attrs & ~kReadOnly)));
    close_fs();
    if (fd < 0) fail("fsmount " + type);
    DetachedMount m(fd);
    if (attrs & kReadOnly) set_attrs(m, attrs);
    return m;
}

DetachedMount new_tmpfs(const std::string &options, unsigned attrs) {
    std::vector<std::pair<std::string, std::string>> pairs;
    size_t start = 0;
    while (start < options.size()) {
        size_t comma = options.find(',', start);
        if (comma == std::string::npos) comma = options.size();
        const std::string opt = options.substr(start, comma - start);
        const auto eq = opt.find('=');
        if (eq == std::string::npos) pairs.emplace_back(opt, "");
        else pairs.emplace_back(opt.substr(0, eq), opt.substr(eq + 1));
        start = comma + 1;
    }
    return new_filesystem("tmpfs", pairs, attrs & ~kReadOnly);
}

void set_attrs(const DetachedMount &m, unsigned attrs) { apply(m.fd(), attrs, "a detached mount"); }

void attach(DetachedMount m, const std::string &target) {
    if (move_mount(m.fd(), "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) < 0) fail("move_mount to " + target);
}

int attach_on(DetachedMount m, int dir_fd, const std::string &shown) {
    if (move_mount(m.fd(), "", dir_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) fail("move_mount to " + shown);
    const int root = ::fcntl(m.fd(), F_DUPFD_CLOEXEC, 0);
    if (root < 0) fail("keep the mount of " + shown);
    return root;
}

void make_dir(const std::string &path, mode_t mode) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec && !fs::is_directory(path)) throw std::runtime_error("mkdir " + path + ": " + ec.message());
    ::chmod(path.c_str(), mode);
}

void make_file(const std::string &path, mode_t mode) {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0) fail("create " + path);
    ::close(fd);
}

void make_dir_at(const DetachedMount &m, const std::string &relative, mode_t mode, uid_t uid, gid_t gid) {
    if (::mkdirat(m.fd(), relative.c_str(), mode) < 0 && errno != EEXIST) fail("mkdir " + relative);
    // mkdir's mode passes through the umask; sticky and set-group-id bits need chmod anyway.
    if (::fchmodat(m.fd(), relative.c_str(), mode, 0) < 0) fail("chmod " + relative);
    if (uid == kKeepOwner && gid == static_cast<gid_t>(kKeepOwner)) return;
    if (::fchownat(m.fd(), relative.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) < 0) fail("chown " + relative);
}

void write_file_at(const DetachedMount &m, const std::string &relative, const std::string &text, mode_t mode) {
    const int fd = ::openat(m.fd(), relative.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) fail("create " + relative);
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!ok) fail("write " + relative);
    ::fchmodat(m.fd(), relative.c_str(), mode, 0);
}

}  // namespace sandbox
