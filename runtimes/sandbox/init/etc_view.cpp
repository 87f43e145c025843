#include "etc_view.hpp"

#include "egress_rules.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>
#include <actionhost/common/io/unique_fd.hpp>

namespace sandbox {

namespace {

// Named secrets and identity backups; entries others may not read, at any depth, are removed as well.
const char *const kRemovedEntries[] = {
    "shadow", "shadow-", "gshadow", "gshadow-", "passwd-", "group-", "sudoers", "sudoers.d", "subuid", "subuid-",
    "subgid", "subgid-", ".pwd.lock", "krb5.keytab", "ipsec.secrets", "credstore", "credstore.encrypted",
    "ssl/private", "security/opasswd", "NetworkManager/system-connections", "wireguard", "openvpn",
    "ppp/chap-secrets", "ppp/pap-secrets", "ipsec.d/private", "docker/key.json", "libvirt/secrets",
};
// Host keys by pattern (their public halves go too: they identify the machine).
const char *const kRemovedPatterns[] = {"/etc/ssh/ssh_host_*"};

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

std::string read_text(const std::string &path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Account {
    std::string name;
    unsigned id, gid;
    std::string home, shell;
};

std::string passwd_text(const Identity &id) {
    std::vector<Account> accounts = {{"root", 0, 0, "/root", "/bin/bash"},
                                     {"nobody", 65534, 65534, "/nonexistent", "/usr/sbin/nologin"}};
    bool replaced = false;
    for (auto &a : accounts) {
        if (a.name == id.user || a.id == id.uid) {
            a = {id.user, id.uid, id.gid, id.home, "/bin/bash"};
            replaced = true;
        }
    }
    if (!replaced) accounts.insert(accounts.begin() + 1, {id.user, id.uid, id.gid, id.home, "/bin/bash"});
    std::string text;
    for (const auto &a : accounts)
        text += a.name + ":x:" + std::to_string(a.id) + ":" + std::to_string(a.gid) + ":" + a.name + ":" + a.home + ":" + a.shell + "\n";
    return text;
}

std::string group_text(const Identity &id) {
    std::map<unsigned, std::string> groups = {{0, "root"}, {65534, "nogroup"}};
    if (!groups.count(id.gid)) groups[id.gid] = id.user;
    std::string text;
    for (const auto &[gid, name] : groups) text += name + ":x:" + std::to_string(gid) + ":" + (gid == id.gid && gid != 0 ? id.user : "") + "\n";
    return text;
}

void whiteout(int layer_fd, const std::string &relative) {
    // Parent directories of a deeper entry exist in the layer as plain (merged) directories.
    for (size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1)) {
        if (::mkdirat(layer_fd, relative.substr(0, slash).c_str(), 0755) < 0 && errno != EEXIST)
            fail("mkdir " + relative.substr(0, slash) + " in the /etc layer");
    }
    // A character device 0:0 is overlayfs' whiteout: the entry below is hidden. Any user may make one.
    if (::mknodat(layer_fd, relative.c_str(), S_IFCHR | 0000, makedev(0, 0)) < 0 && errno != EEXIST)
        fail("whiteout " + relative + " in the /etc layer");
}

// Whites out, below `relative` of the machine's /etc (`path`), each entry others may not read, at most
// kMaxDepth levels down, never through a link. A few thousand entries: about a millisecond of a start.
constexpr int kMaxDepth = 12;
void hide_unreadable(int layer_fd, const std::string &path, const std::string &relative, int depth = 0) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    DIR *dir = ::fdopendir(fd);
    if (dir == nullptr) {
        ::close(fd);
        return;
    }
    for (dirent *e = ::readdir(dir); e != nullptr; e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        struct stat st{};
        if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode)) continue;
        const std::string entry = relative.empty() ? name : relative + "/" + name;
        const bool unreadable = !(st.st_mode & S_IROTH) || (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH));
        if (unreadable) whiteout(layer_fd, entry);
        else if (S_ISDIR(st.st_mode) && depth < kMaxDepth) hide_unreadable(layer_fd, path + "/" + name, entry, depth + 1);
    }
    ::closedir(dir);
}

void write_at(int dir_fd, const std::string &name, const std::string &text) {
    const int fd = ::openat(dir_fd, name.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) fail("create " + name + " in the /etc layer");
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!ok) fail("write " + name + " in the /etc layer");
}

}  // namespace

std::string machine_resolv_conf() { return read_text("/etc/resolv.conf"); }

std::string with_extra_trust(std::string bundle, const std::string &extra) {
    if (!bundle.empty() && bundle.back() != '\n') bundle += '\n';
    return bundle + extra;
}

std::string sandbox_resolv_conf(const std::string &network_mode) {
    if (network_mode == "host") return machine_resolv_conf();
    if (network_mode == "internet")
        return std::string("# The sandbox's resolver guard (outside the sandbox): it asks upstream and applies the egress policy's names.\nnameserver ") +
               kGuardAddress + "\n";
    return "# This sandbox has no network.\n";
}

void mount_etc_view(const DetachedMount &scratch, const std::string &layer, const Identity &id, const std::string &target) {
    make_dir_at(scratch, layer, 0755);
    const int layer_fd = ::openat(scratch.fd(), layer.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (layer_fd < 0) fail("open the /etc layer");
    const actionhost::common::io::UniqueFd close_layer(layer_fd);
    const int dir_fd = ::openat(scratch.fd(), layer.c_str(), O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) fail("open the /etc layer");
    const actionhost::common::io::UniqueFd close_dir(dir_fd);

    write_at(dir_fd, "passwd", passwd_text(id));
    write_at(dir_fd, "group", group_text(id));
    write_at(dir_fd, "hostname", id.hostname + "\n");
    write_at(dir_fd, "hosts", "127.0.0.1\tlocalhost\n127.0.1.1\t" + id.hostname +
                                  "\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    write_at(dir_fd, "resolv.conf", id.resolv_conf);
    if (!id.extra_trust.empty()) {
        // The machine's bundle and the sandbox's own CA: one file over the machine's, in the layer.
        for (const char *dir : {"ssl", "ssl/certs"})
            if (::mkdirat(dir_fd, dir, 0755) != 0 && errno != EEXIST) fail(std::string("create ") + dir + " in the /etc layer");
        write_at(dir_fd, std::string(kCaBundle).substr(5), with_extra_trust(read_text(kCaBundle), id.extra_trust));
    }

    // What the machine's /etc holds that the sandbox must not see: every entry, at any depth, that other
    // users may not read (a directory they may not list or enter is hidden whole, not walked).
    hide_unreadable(dir_fd, "/etc", "");
    for (const char *entry : kRemovedEntries) {
        struct stat st{};
        if (::lstat((std::string("/etc/") + entry).c_str(), &st) == 0) whiteout(dir_fd, entry);
    }
    for (const char *pattern : kRemovedPatterns) {
        glob_t g{};
        if (::glob(pattern, GLOB_NOSORT, nullptr, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; ++i) whiteout(dir_fd, std::string(g.gl_pathv[i]).substr(5));  // past "/etc/"
        }
        ::globfree(&g);
    }

    // lowerdir layers, top first; no upperdir: a read-only overlay. The layer is named through its
    // descriptor: the scratch tmpfs is mounted nowhere.
    const std::string options = "lowerdir=/proc/self/fd/" + std::to_string(layer_fd) + ":/etc";
    if (::mount("overlay", target.c_str(), "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, options.c_str()) < 0)
        fail("mount the /etc overlay (needs Linux 5.11 or later for overlayfs in a user namespace)");
}

}  // namespace sandbox
