#include "mounts.hpp"

#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace sandbox {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

void must(int rc, const std::string &what) {
    if (rc < 0) fail(what);
}

// A detached copy of the mount tree at `path` (taken before anything is mounted over it).
int clone_tree(const std::string &path, bool read_only) {
    int fd = open_tree(AT_FDCWD, path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd < 0) fail("open_tree " + path);
    if (read_only) {
        struct mount_attr attr {};
        attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0) {
            // Some locked submounts refuse NODEV changes; read-only alone is what matters.
            attr.attr_set = MOUNT_ATTR_RDONLY;
            if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0) fail("mount_setattr " + path);
        }
    }
    return fd;
}

void attach(int tree_fd, const std::string &target) {
    if (move_mount(tree_fd, "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) < 0) fail("move_mount to " + target);
    close(tree_fd);
}

void make_dir(const std::string &path, mode_t mode = 0755) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec && !fs::is_directory(path)) throw std::runtime_error("mkdir " + path + ": " + ec.message());
    chmod(path.c_str(), mode);
}

void make_file(const std::string &path) {
    int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) fail("create " + path);
    close(fd);
}

void tmpfs(const std::string &target, const char *options) {
    must(mount("tmpfs", target.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options), "mount tmpfs on " + target);
}


}  // namespace

void build_root(const Options &o) {
    // The standard top-level directories only: other trees of the machine (build trees, mounts of the
    // machinery running us) stay out unless named with --ro-bind.
    const std::set<std::string> standard = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "opt",
                                            "var", "home", "root", "srv", "mnt", "media"};
    must(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), "make / private");

    // 1. Take every tree we want before the new root hides anything (the workspace and the install
    //    tree may live under /tmp, which gets a private tmpfs).
    std::map<std::string, int> top;            // "/usr" → ro tree
    std::map<std::string, std::string> links;  // "/bin" → "usr/bin"
    for (const auto &entry : fs::directory_iterator("/")) {
        std::string name = entry.path().filename().string();
        std::string path = "/" + name;
        if (!standard.count(name)) continue;
        if (entry.is_symlink()) {
            links[path] = fs::read_symlink(entry.path()).string();
        } else if (entry.is_directory()) {
            top[path] = clone_tree(path, true);
        }
    }
    int sys_tree = clone_tree("/sys", true);
    std::vector<std::pair<std::string, int>> extra;
    for (const auto &p : o.ro_binds)
        if (fs::exists(p)) extra.emplace_back(fs::canonical(p).string(), clone_tree(fs::canonical(p).string(), true));
    int workspace_tree = o.workspace.empty() ? -1 : clone_tree(o.workspace, false);
    std::vector<std::pair<std::string, int>> rw;
    for (const auto &[outside, inside] : o.rw_binds) rw.emplace_back(inside, clone_tree(outside, false));
    std::map<std::string, int> devices;
    for (const char *d : {"null", "zero", "full", "random", "urandom", "tty"})
        devices[d] = open_tree(AT_FDCWD, (std::string("/dev/") + d).c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

    // 2. The new root: a tmpfs holding mount points, made read-only at the end.
    const std::string root = o.root_mount;
    tmpfs(root, "mode=0755");
    for (auto &[path, fd] : top) {
        make_dir(root + path);
        attach(fd, root + path);
    }
    for (const auto &[path, target] : links) {
        if (symlink(target.c_str(), (root + path).c_str()) < 0) fail("symlink " + path);
    }
    make_dir(root + "/sys");
    attach(sys_tree, root + "/sys");

    make_dir(root + "/tmp", 01777);
    tmpfs(root + "/tmp", "mode=1777");
    make_dir(root + "/run");
    tmpfs(root + "/run", "mode=0755");

    // /dev: a few devices bound from the caller's, a private devpts (the bash plugin needs PTYs).
    make_dir(root + "/dev");
    tmpfs(root + "/dev", "mode=0755");
    for (auto &[name, fd] : devices) {
        if (fd < 0) continue;
        make_file(root + "/dev/" + name);
        attach(fd, root + "/dev/" + name);
    }
    make_dir(root + "/dev/pts");
    must(mount("devpts", (root + "/dev/pts").c_str(), "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"),
         "mount devpts");
    symlink("pts/ptmx", (root + "/dev/ptmx").c_str());
    make_dir(root + "/dev/shm", 01777);
    tmpfs(root + "/dev/shm", "mode=1777");
    symlink("/proc/self/fd", (root + "/dev/fd").c_str());
    symlink("/proc/self/fd/0", (root + "/dev/stdin").c_str());
    symlink("/proc/self/fd/1", (root + "/dev/stdout").c_str());
    symlink("/proc/self/fd/2", (root + "/dev/stderr").c_str());

    make_dir(root + "/proc");
    must(mount("proc", (root + "/proc").c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr), "mount proc");

    if (!o.home.empty()) {
        make_dir(root + o.home);  // exists already when under a read-only tree: mounting over it is fine
        tmpfs(root + o.home, "mode=0700");
    }
    // Extra read-only paths (the install tree when it lives under a replaced directory like /tmp).
    for (auto &[path, fd] : extra) {
        if (!fs::exists(root + path)) make_dir(root + path);
        attach(fd, root + path);
    }
    for (auto &[inside, fd] : rw) {
        if (!fs::exists(root + inside)) make_dir(root + inside);
        attach(fd, root + inside);
    }
    if (workspace_tree >= 0) {
        if (!fs::exists(root + o.workspace_target)) make_dir(root + o.workspace_target);
        attach(workspace_tree, root + o.workspace_target);
    }

    // 3. Into it; the old root goes away entirely.
    must(chdir(root.c_str()), "chdir new root");
    must(static_cast<int>(syscall(SYS_pivot_root, ".", ".")), "pivot_root");
    must(umount2(".", MNT_DETACH), "detach old root");
    must(chdir("/"), "chdir /");
    must(mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr), "make the root read-only");
}

void loopback_up() {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    struct ifreq ifr {};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) fail("SIOCGIFFLAGS lo");
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
    if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) fail("SIOCSIFFLAGS lo");
    close(fd);
}

}  // namespace sandbox
