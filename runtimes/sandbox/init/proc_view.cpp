#include "proc_view.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sandbox {

namespace {

const char *const kReadOnlyEntries[] = {"sys", "sysrq-trigger", "irq", "bus", "fs"};
const char *const kMaskedFiles[] = {"kcore", "keys", "timer_list", "sched_debug", "latency_stats", "timer_stats",
                                    "kallsyms", "kmsg"};
const char *const kMaskedDirs[] = {"acpi", "scsi", "asound"};

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

bool exists(const std::string &path, bool *is_dir) {
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0) return false;
    *is_dir = S_ISDIR(st.st_mode);
    return true;
}

}  // namespace

std::vector<std::string> mount_proc_view(const std::string &target, const std::string &dev_null_path,
                                         const NamespacedSettings &settings) {
    if (::mount("proc", target.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) < 0) fail("mount proc");
    std::vector<std::string> unset;
    for (const auto &[name, value] : settings) {
        const int fd = ::open((target + "/sys/" + name).c_str(), O_WRONLY | O_CLOEXEC);
        const bool ok = fd >= 0 && ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
        if (fd >= 0) ::close(fd);
        if (!ok) unset.push_back(name + " = " + value + " (" + std::strerror(errno) + ")");
    }
    bool is_dir = false;
    for (const char *name : kReadOnlyEntries) {
        const std::string path = target + "/" + name;
        if (!exists(path, &is_dir)) continue;
        attach(clone_tree(path, kReadOnly | kNoSuid | kNoDev | kNoExec), path);
    }
    for (const char *name : kMaskedFiles) {
        const std::string path = target + "/" + name;
        if (!exists(path, &is_dir) || is_dir) continue;
        attach(clone_tree(dev_null_path, kReadOnly | kNoSuid | kNoExec), path);
    }
    for (const char *name : kMaskedDirs) {
        const std::string path = target + "/" + name;
        if (!exists(path, &is_dir) || !is_dir) continue;
        DetachedMount empty = new_tmpfs("size=4k,nr_inodes=1,mode=0555", kNoSuid | kNoDev | kNoExec);
        set_attrs(empty, kReadOnly);
        attach(std::move(empty), path);
    }
    return unset;
}

}  // namespace sandbox
