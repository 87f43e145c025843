#include "cgroups.hpp"

#include <actionhost/common/io/small_file.hpp>
#include <actionhost/lifetime/cgroup_freezer.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace sandbox {

namespace fs = std::filesystem;

namespace {

const char *const kV1Controllers[] = {"memory", "pids", "cpu", "freezer"};

// The one small-file reader and writer (common/io/small_file.hpp); cgroup.procs may list many pids.
bool write_text(const std::string &path, const std::string &text) { return actionhost::common::io::write_small_file(path, text); }
std::string read_text(const std::string &path) { return actionhost::common::io::read_small_file(path, 4 << 20); }

std::string v2_root() {
    return fs::exists("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
}

// The actionhost/ parent directory of every hierarchy that may hold sandbox groups.
std::vector<std::string> parent_dirs() {
    std::vector<std::string> out;
    if (cgroup_v2_usable()) out.push_back(v2_root() + "/actionhost");
    for (const char *c : kV1Controllers) out.push_back(std::string("/sys/fs/cgroup/") + c + "/actionhost");
    return out;
}

std::vector<pid_t> procs_of(const std::string &dir) {
    std::vector<pid_t> pids;
    std::istringstream in(read_text(dir + "/cgroup.procs"));
    for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
    return pids;
}

void thaw_dir(const std::string &dir) { actionhost::lifetime::thaw_cgroup(dir); }

}  // namespace

std::string cgroup_v1_path(const std::string &controller, const std::string &name) {
    return "/sys/fs/cgroup/" + controller + "/actionhost/" + name;
}

bool cgroup_v2_usable() {
    // Pure v2 (/sys/fs/cgroup is cgroup2) or hybrid (/sys/fs/cgroup/unified) with the controllers.
    for (const char *root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
        std::string controllers = read_text(std::string(root) + "/cgroup.controllers");
        if (controllers.find("memory") != std::string::npos && controllers.find("pids") != std::string::npos) return true;
    }
    return false;
}

CgroupCreationLock::CgroupCreationLock(Mode mode) {
    // The first hierarchy's actionhost/ directory is the lock (flock works on any directory).
    for (const auto &dir : parent_dirs()) {
        std::error_code ec;
        if (mode == Creating && ::geteuid() == 0) fs::create_directories(dir, ec);
        fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ >= 0) break;
    }
    if (fd_ < 0) return;
    if (mode == Creating) {
        while (!(held_ = ::flock(fd_, LOCK_SH) == 0) && errno == EINTR) {
        }
        return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (!(held_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

CgroupCreationLock::~CgroupCreationLock() {
    if (fd_ >= 0) ::close(fd_);
}

Cgroup::Cgroup(const std::string &name, const Limits &limits) {
    std::error_code ec;
    if (cgroup_v2_usable()) {
        std::string parent = v2_root() + "/actionhost";
        fs::create_directories(parent, ec);
        write_text(parent + "/cgroup.subtree_control", "+memory +pids +cpu");
        std::string dir = parent + "/" + name;
        if (!fs::create_directories(dir, ec) && ec) {
            warnings_.push_back("cannot create cgroup " + dir + ": " + ec.message());
            return;
        }
        paths_.push_back(dir);
        views_.emplace_back(dir, "");
        if (limits.memory_mb > 0) write_text(dir + "/memory.max", std::to_string(limits.memory_mb * 1024 * 1024));
        if (limits.memory_mb > 0) write_text(dir + "/memory.swap.max", "0");
        if (limits.pids > 0) write_text(dir + "/pids.max", std::to_string(limits.pids));
        if (limits.cpus > 0) write_text(dir + "/cpu.max", std::to_string(static_cast<long>(limits.cpus * 100000)) + " 100000");
        return;
    }
    struct Want {
        const char *controller;
        bool needed;
    };
    for (Want w : {Want{"memory", limits.memory_mb > 0}, Want{"pids", limits.pids > 0}, Want{"cpu", limits.cpus > 0},
                   Want{"freezer", true}}) {
        if (!w.needed || !fs::exists(std::string("/sys/fs/cgroup/") + w.controller)) continue;
        std::string dir = cgroup_v1_path(w.controller, name);
        fs::create_directories(dir, ec);
        if (ec) {
            warnings_.push_back("cannot create cgroup " + dir + ": " + ec.message());
            continue;
        }
        paths_.push_back(dir);
        views_.emplace_back(dir, w.controller);
        bool ok = true;
        if (std::string(w.controller) == "memory") {
            ok = write_text(dir + "/memory.limit_in_bytes", std::to_string(limits.memory_mb * 1024 * 1024));
            write_text(dir + "/memory.memsw.limit_in_bytes", std::to_string(limits.memory_mb * 1024 * 1024));
            // Setting it turns the group's TCP accounting on: past it, the group's sockets are under
            // memory pressure (windows shrink, sends wait) instead of taking the machine's memory.
            if (limits.tcp_memory_mb > 0 &&
                !write_text(dir + "/memory.kmem.tcp.limit_in_bytes", std::to_string(limits.tcp_memory_mb * 1024 * 1024)))
                warnings_.push_back("cannot bound socket memory in " + dir + " (no memory.kmem.tcp.limit_in_bytes)");
        } else if (std::string(w.controller) == "pids") {
            ok = write_text(dir + "/pids.max", std::to_string(limits.pids));
        } else if (std::string(w.controller) == "cpu") {
            ok = write_text(dir + "/cpu.cfs_period_us", "100000") &&
                 write_text(dir + "/cpu.cfs_quota_us", std::to_string(static_cast<long>(limits.cpus * 100000)));
        }
        if (!ok) warnings_.push_back(std::string("cannot set the ") + w.controller + " limit in " + dir);
    }
}

std::vector<int> Cgroup::open_self_join_files() {
    std::vector<int> fds;
    joined_by_parent_.clear();
    for (const auto &[dir, name] : views_) {
        const int fd = name.empty() ? -1 : ::open((dir + "/tasks").c_str(), O_WRONLY | O_CLOEXEC);  // "": the v2 group
        if (fd >= 0)
            fds.push_back(fd);
        else
            joined_by_parent_.push_back(dir);
    }
    return fds;
}

void Cgroup::join_others(pid_t pid) {
    for (const auto &dir : joined_by_parent_)
        if (!write_text(dir + "/cgroup.procs", std::to_string(pid))) warnings_.push_back("cannot join " + dir);
}

bool join_self(int fd) { return ::write(fd, "0", 1) == 1; }

void Cgroup::thaw() const {
    for (const auto &dir : paths_) thaw_dir(dir);
}

bool Cgroup::freeze() const {
    bool done = false;
    for (const auto &dir : paths_) done = actionhost::lifetime::freeze_cgroup(dir) || done;
    return done;
}

bool Cgroup::has_freezer() const {
    for (const auto &dir : paths_)
        if (actionhost::lifetime::cgroup_has_freezer(dir)) return true;
    return false;
}

bool Cgroup::frozen() const {
    for (const auto &dir : paths_)
        if (actionhost::lifetime::cgroup_frozen(dir)) return true;
    return false;
}

void Cgroup::remove(double timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (const auto &dir : paths_) {
        for (int i = 0; i < 10000; ++i) {
            if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) break;
            if (std::chrono::steady_clock::now() >= deadline) break;
            // A frozen group never empties: thaw it first.
            thaw_dir(dir);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
}

std::vector<std::string> sandbox_cgroup_names() {
    std::set<std::string> names;
    for (const auto &parent : parent_dirs()) {
        DIR *d = ::opendir(parent.c_str());
        if (d == nullptr) continue;
        for (dirent *e = ::readdir(d); e != nullptr; e = ::readdir(d))
            if (e->d_type == DT_DIR && std::string(e->d_name).rfind("ah-", 0) == 0) names.insert(e->d_name);
        ::closedir(d);
    }
    return {names.begin(), names.end()};
}

std::vector<std::string> sandbox_cgroup_dirs(const std::string &name) {
    std::vector<std::string> dirs;
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") return dirs;
    for (const auto &parent : parent_dirs())
        if (fs::is_directory(parent + "/" + name)) dirs.push_back(parent + "/" + name);
    return dirs;
}

bool sandbox_cgroup_empty(const std::string &name) {
    for (const auto &dir : sandbox_cgroup_dirs(name))
        if (!procs_of(dir).empty()) return false;
    return true;
}

bool kill_and_remove_cgroup(const std::string &name, double timeout_s) {
    const auto dirs = sandbox_cgroup_dirs(name);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (const auto &dir : dirs) thaw_dir(dir);
    for (const auto &dir : dirs)
        if (fs::exists(dir + "/cgroup.kill")) write_text(dir + "/cgroup.kill", "1");
    bool gone = true;
    for (const auto &dir : dirs) {
        for (int round = 0;; ++round) {
            if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) break;
            if (std::chrono::steady_clock::now() >= deadline || round > 100'000) {
                gone = false;
                break;
            }
            // Killed processes leave their groups as they exit; new ones may have been forked meanwhile.
            for (pid_t pid : procs_of(dir)) ::kill(pid, SIGKILL);
            thaw_dir(dir);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    return gone;
}

}  // namespace sandbox
