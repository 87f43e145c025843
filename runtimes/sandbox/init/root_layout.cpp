#include "root_layout.hpp"

#include "image_paths.hpp"

#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "proc_view.hpp"
#include "sys_view.hpp"

namespace sandbox {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

void must(int rc, const std::string &what) {
    if (rc < 0) fail(what);
}

// The machine's software trees, shown read-only. Nothing else of the machine's top level is shown.
const char *const kSoftwareTrees[] = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt"};
const char *const kDevices[] = {"null", "zero", "full", "random", "urandom", "tty"};

// Directories of the scratch tmpfs and where they appear.
struct ScratchDir {
    const char *name;
    mode_t mode;
};
constexpr ScratchDir kTmp{"tmp", 01777}, kVarTmp{"var-tmp", 01777}, kRun{"run", 0755}, kShm{"shm", 01777},
    kRootHome{"root-home", 0700}, kUserHome{"user-home", 0700};

void symlink_at(const std::string &target, const std::string &path) {
    if (::symlink(target.c_str(), path.c_str()) < 0 && errno != EEXIST) fail("symlink " + path);
}

}  // namespace

namespace {

// What both kinds of root take from the machine: read-only extras, the workspace, the read-write binds,
// the devices, the sandbox's cgroup trees.
void take_common_trees(const RootPlan &plan, MachineTrees &t) {
    const Options &o = *plan.options;
    for (const auto &p : o.ro_binds) {
        std::error_code ec;
        const std::string real = fs::canonical(p, ec).string();
        if (!ec) t.extra.emplace_back(real, clone_tree(real, kReadOnly | kNoSuid | kNoDev));
    }
    if (plan.workspace_mount >= 0) {
        // Cloned outside from the directory that was checked, with its id mapping: attached as it is.
        t.workspace = DetachedMount(fcntl(plan.workspace_mount, F_DUPFD_CLOEXEC, 3));
        if (!t.workspace.valid()) throw std::runtime_error(std::string("cannot take the idmapped workspace: ") + std::strerror(errno));
    } else if (!o.workspace.empty()) {
        // Opened again here (a descriptor of the outside namespace cannot be cloned in this one), and
        // only the directory that was checked and handed over is mounted.
        const WorkspaceDir dir(o.workspace);
        if (!(dir.identity() == plan.workspace))
            throw std::runtime_error("refusing the workspace " + o.workspace +
                                     ": a directory on its path was replaced while the sandbox started");
        t.workspace = clone_tree_of(dir.fd(), o.workspace, kNoSuid | kNoDev);
    }
    for (const auto &[outside, inside] : o.rw_binds) t.rw.emplace_back(inside, clone_tree(outside, kNoSuid | kNoDev | kNoExec));
    for (const auto &v : o.volumes) {
        struct stat st{};
        if (::stat(v.outside.c_str(), &st) != 0) fail("the volume " + v.outside);
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
            throw std::runtime_error("the volume " + v.outside + " is neither a directory nor a regular file");
        t.volumes.push_back({v.inside, clone_tree(v.outside, kNoSuid | kNoDev | (v.read_only ? kReadOnly : 0u)), S_ISREG(st.st_mode)});
    }
    std::sort(t.volumes.begin(), t.volumes.end(), [](const TakenVolume &a, const TakenVolume &b) { return a.inside < b.inside; });
    for (const char *d : kDevices) {
        const std::string path = std::string("/dev/") + d;
        if (::access(path.c_str(), F_OK) == 0) t.devices[d] = clone_tree(path, kNoSuid | kNoExec);
    }
    t.sys = take_sys_trees(plan.cgroup_views);
}

actionhost::common::io::UniqueFd open_path(const std::string &path, const char *what) {
    actionhost::common::io::UniqueFd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd) fail(std::string("open ") + what + " " + path);
    return fd;
}


MachineTrees take_image_trees(const RootPlan &plan) {
    const Options &o = *plan.options;
    MachineTrees t;
    // Opened here, with the creator's ids: the image store is the caller's alone, and phase 2 names
    // each directory through its descriptor.
    for (const auto &layer : o.image_layers) t.layers.push_back(open_path(layer, "the image layer"));
    t.upper = open_path(o.upper_dir, "the upper directory");
    t.work = open_path(o.work_dir, "the work directory");
    t.root_mount = open_path(o.root_mount, "the root mount point");
    t.bundle = clone_tree(o.bundle_dir, kReadOnly | kNoSuid | kNoDev);
    take_common_trees(plan, t);
    return t;
}

}  // namespace

MachineTrees take_machine_trees(const RootPlan &plan) {
    const Options &o = *plan.options;
    must(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), "make / private");
    if (o.image()) return take_image_trees(plan);
    MachineTrees t;
    for (const char *name : kSoftwareTrees) {
        const std::string path = std::string("/") + name;
        struct stat st{};
        if (::lstat(path.c_str(), &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) t.links[path] = fs::read_symlink(path).string();
        else if (S_ISDIR(st.st_mode)) t.software[path] = clone_tree(path, kReadOnly | kNoSuid | kNoDev);
    }
    take_common_trees(plan, t);
    // The new root: a tmpfs of mount points (read-only at the end), entered so that phase 2 never walks
    // the machine's directories (the sandbox's ids may not pass them).
    attach(new_tmpfs("size=1m,mode=0755,uid=" + std::to_string(plan.builder_uid) + ",gid=" + std::to_string(plan.builder_gid),
                     kNoSuid | kNoDev),
           o.root_mount);
    must(::chdir(o.root_mount.c_str()), "enter the new root");
    return t;
}


namespace {

// The image's root, entered: its layers under the sandbox's upper directory, named through the
// descriptors phase 1 opened (the store is the caller's alone). Made here, with the sandbox's ids, so that
// the overlay works as the sandbox's root: what it copies up and creates belongs to the sandbox's ids.
// userxattr: in a user namespace overlayfs keeps its marks (opaque directories) in user.overlay.* — the
// form the image store unpacks layers in.
void enter_image_root(MachineTrees &t, const std::string &shown) {
    std::string lower;
    for (auto it = t.layers.rbegin(); it != t.layers.rend(); ++it) lower += (lower.empty() ? "" : ":") + std::string("/proc/self/fd/") + std::to_string(it->get());
    DetachedMount overlay = new_filesystem("overlay",
                                           {{"lowerdir", lower},
                                            {"upperdir", "/proc/self/fd/" + std::to_string(t.upper.get())},
                                            {"workdir", "/proc/self/fd/" + std::to_string(t.work.get())},
                                            {"userxattr", ""}},
                                           kNoSuid | kNoDev);
    actionhost::common::io::UniqueFd root(attach_on(std::move(overlay), t.root_mount.get(), shown));
    must(::fchdir(root.get()), "enter the image's root");
    t.layers.clear();
    t.upper.reset();
    t.work.reset();
}

// /etc/hostname, /etc/hosts and /etc/resolv.conf of an image's root: the sandbox's own, written into the
// scratch tmpfs and bound over the image's (created when it has none), never into its layers.
void bind_generated_etc(const DetachedMount &scratch, const Identity &id, const std::string &root) {
    make_dir_at(scratch, "etc-gen", 0755);
    const std::pair<const char *, std::string> files[] = {
        {"hostname", id.hostname + "\n"},
        {"hosts", "127.0.0.1\tlocalhost\n127.0.1.1\t" + id.hostname + "\n::1\tlocalhost ip6-localhost ip6-loopback\n"},
        {"resolv.conf", id.resolv_conf},
    };
    make_dir(root + "/etc");
    std::vector<std::pair<std::string, std::string>> generated(std::begin(files), std::end(files));
    if (!id.extra_trust.empty()) {
        // The image's CA bundle (if it has one: its links were made real directories before) with the
        // sandbox's own CA after it.
        std::string bundle;
        const int fd = ::open((root + kCaBundle).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st{};
        if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (8 << 20)) {
            bundle.resize(static_cast<size_t>(st.st_size));
            if (::read(fd, bundle.data(), bundle.size()) != static_cast<ssize_t>(bundle.size())) bundle.clear();
        }
        if (fd >= 0) ::close(fd);
        generated.emplace_back(std::string(kCaBundle).substr(5), with_extra_trust(bundle, id.extra_trust));
    }
    for (const auto &[name, text] : generated) {
        const std::string flat = name.substr(name.rfind('/') + 1);  // ssl/certs/ca-certificates.crt: flat in etc-gen
        write_file_at(scratch, "etc-gen/" + flat, text);
        const std::string target = root + "/etc/" + name;
        struct stat st{};
        if (::lstat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
            ::unlink(target.c_str());
            make_file(target);
        }
        attach(clone_subtree(scratch, "etc-gen/" + flat, kNoSuid | kNoDev | kNoExec | kReadOnly), target);
    }
}

}  // namespace

void assemble_root(const RootPlan &plan, MachineTrees t) {
    const Options &o = *plan.options;
    const Identity &id = plan.identity;
    const std::string root = ".";
    const unsigned kScratchAttrs = kNoSuid | kNoDev;
    if (o.image()) {
        enter_image_root(t, o.root_mount);
        // No link of the image's may lead the path operations below out of its root (image_paths.hpp).
        std::vector<std::string> used = {"/etc", "/tmp", "/run", "/var", "/var/tmp", "/dev", "/proc", "/sys", "/openhands/actionhost"};
        if (!id.extra_trust.empty()) used.push_back("/etc/ssl/certs");  // where the CA bundle is bound
        for (const auto &[path, tree] : t.extra) used.push_back(path);
        for (const auto &[inside, tree] : t.rw) used.push_back(inside);
        if (t.workspace.valid()) used.push_back(o.workspace_target);
        for (const auto &v : t.volumes) used.push_back(v.file ? fs::path(v.inside).parent_path().string() : v.inside);
        actionhost::common::io::UniqueFd here(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!here) fail("open the image's root");
        for (const auto &line : make_paths_real(here.get(), used)) std::fprintf(stderr, "ah-sandbox-init: note: %s\n", line.c_str());  // ahctl shows notes
    }

    // The scratch tmpfs behind every writable place but the workspace, mounted nowhere itself.
    const long inodes = std::max(4096L, plan.scratch_mb * 256);
    DetachedMount scratch = new_tmpfs(
        "size=" + std::to_string(plan.scratch_mb) + "m,nr_inodes=" + std::to_string(inodes) + ",mode=0755", kScratchAttrs);
    for (const ScratchDir &d : {kTmp, kVarTmp, kRun, kShm, kRootHome}) make_dir_at(scratch, d.name, d.mode);
    // An image brings its own homes (what is installed there goes into the sandbox's layer).
    const bool user_home = id.home != "/root" && !o.image();
    if (user_home) make_dir_at(scratch, kUserHome.name, kUserHome.mode, id.uid, id.gid);
    make_dir_at(scratch, "run/lock", 01777);

    for (auto &[path, tree] : t.software) {
        make_dir(root + path);
        attach(std::move(tree), root + path);
    }
    for (const auto &[path, target] : t.links) symlink_at(target, root + path);

    if (o.image()) {
        bind_generated_etc(scratch, id, root);
    } else {
        make_dir(root + "/etc");
        mount_etc_view(scratch, "etc-layer", id, root + "/etc");
    }

    make_dir(root + "/tmp", 01777);
    attach(clone_subtree(scratch, kTmp.name, kScratchAttrs), root + "/tmp");
    make_dir(root + "/run");
    attach(clone_subtree(scratch, kRun.name, kScratchAttrs), root + "/run");
    make_dir(root + "/var/tmp", 01777);
    attach(clone_subtree(scratch, kVarTmp.name, kScratchAttrs), root + "/var/tmp");
    symlink_at("/run", root + "/var/run");
    symlink_at("/run/lock", root + "/var/lock");

    if (!o.image()) {
        make_dir(root + "/home");  // empty but for the sandbox user's own home: none of the machine's users
        make_dir(root + "/root", 0700);
        attach(clone_subtree(scratch, kRootHome.name, kScratchAttrs), root + "/root");
    }
    if (user_home) {
        make_dir(root + id.home, 0755);
        attach(clone_subtree(scratch, kUserHome.name, kScratchAttrs), root + id.home);
    }

    // /dev: the devices bound from the machine's, a private devpts (the bash plugin needs PTYs), shm.
    make_dir(root + "/dev");
    attach(new_tmpfs("size=64k,mode=0755", kNoSuid | kNoExec), root + "/dev");
    for (auto &[name, tree] : t.devices) {
        make_file(root + "/dev/" + name);
        attach(std::move(tree), root + "/dev/" + name);
    }
    make_dir(root + "/dev/pts");
    must(::mount("devpts", (root + "/dev/pts").c_str(), "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"),
         "mount devpts");
    symlink_at("pts/ptmx", root + "/dev/ptmx");
    make_dir(root + "/dev/shm", 01777);
    attach(clone_subtree(scratch, kShm.name, kScratchAttrs | kNoExec), root + "/dev/shm");
    symlink_at("/proc/self/fd", root + "/dev/fd");
    symlink_at("/proc/self/fd/0", root + "/dev/stdin");
    symlink_at("/proc/self/fd/1", root + "/dev/stdout");
    symlink_at("/proc/self/fd/2", root + "/dev/stderr");

    make_dir(root + "/proc");
    // SysV shared memory shares the scratch budget: at most half of it in all, no segment larger.
    const long shm_bytes = plan.scratch_mb / 2 * 1024 * 1024;
    for (const auto &unset : mount_proc_view(root + "/proc", root + "/dev/null",
                                             {{"kernel/shmmax", std::to_string(shm_bytes)},
                                              {"kernel/shmall", std::to_string(shm_bytes / 4096)},
                                              {"kernel/shmmni", "4096"}}))
        std::fprintf(stderr, "ah-sandbox-init: warning: cannot set %s\n", unset.c_str());
    make_dir(root + "/sys");
    mount_sys_view(root + "/sys", std::move(t.sys));

    // The install tree and other read-only extras, the read-write binds, the workspace.
    for (auto &[path, tree] : t.extra) {
        make_dir(root + path);
        attach(std::move(tree), root + path);
    }
    for (auto &[inside, tree] : t.rw) {
        make_dir(root + inside);
        attach(std::move(tree), root + inside);
    }
    if (t.workspace.valid()) {
        make_dir(root + o.workspace_target);
        attach(std::move(t.workspace), root + o.workspace_target);
    }
    // The user's volumes last: one inside the workspace (or inside another volume) goes over it.
    for (auto &v : t.volumes) {
        if (v.file) {
            make_dir(root + fs::path(v.inside).parent_path().string());
            make_file(root + v.inside);
        } else {
            make_dir(root + v.inside);
        }
        attach(std::move(v.tree), root + v.inside);
    }
    if (t.bundle.valid()) {
        make_dir(root + "/openhands/actionhost");
        attach(std::move(t.bundle), root + "/openhands/actionhost");
    }

    // Into it; the machine's root goes away entirely.
    must(static_cast<int>(::syscall(SYS_pivot_root, ".", ".")), "pivot_root");
    must(::umount2(".", MNT_DETACH), "detach old root");
    must(::chdir("/"), "chdir /");
    // The machine's kind of root is a tmpfs of mount points, read-only; an image's is the sandbox's own.
    if (!o.image())
        must(::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr),
             "make the root read-only");
}

void loopback_up() {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    struct ifreq ifr {};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (::ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) fail("SIOCGIFFLAGS lo");
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
    if (::ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) fail("SIOCSIFFLAGS lo");
    ::close(fd);
}

}  // namespace sandbox
