#include "host_freezer.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/lifetime/cgroup_freezer.hpp>
#include <actionhost/runtime_support/owned_dir.hpp>
#include <actionhost/runtime_support/process.hpp>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "local_host.hpp"

namespace actionhost::local_runtime {

namespace {

constexpr const char *kFreezerRoot = "/sys/fs/cgroup/freezer";
constexpr const char *kParent = "/sys/fs/cgroup/freezer/actionhost";
constexpr int kMaxAdoptLooks = 20;

// The freezer group of `pid` ("/" for the root group), from /proc/<pid>/cgroup; "" when unknown.
std::string freezer_group_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
    for (std::string line; std::getline(in, line);) {
        const size_t first = line.find(':');
        const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos) continue;
        std::istringstream controllers(line.substr(first + 1, second - first - 1));
        for (std::string c; std::getline(controllers, c, ',');)
            if (c == "freezer") return line.substr(second + 1);
    }
    return "";
}

std::vector<pid_t> procs_of(const std::string &dir) {
    std::vector<pid_t> pids;
    std::ifstream in(dir + "/cgroup.procs");
    for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
    return pids;
}

bool move_into(const std::string &dir, pid_t pid) {
    std::ofstream out(dir + "/cgroup.procs");
    out << pid;
    out.flush();
    return static_cast<bool>(out);
}

// Moves every process of `dir` into `home`; true when `dir` is empty after.
bool move_all(const std::string &dir, const std::string &home) {
    for (int look = 0; look < kMaxAdoptLooks; ++look) {
        const auto pids = procs_of(dir);
        if (pids.empty()) return true;
        for (pid_t pid : pids) move_into(home, pid);
    }
    return procs_of(dir).empty();
}

}  // namespace

std::unique_ptr<HostFreezer> HostFreezer::make(const std::string &name, pid_t host) {
    struct stat st{};
    if (::geteuid() != 0 || ::stat(kFreezerRoot, &st) != 0 || ::access((std::string(kFreezerRoot) + "/freezer.state").c_str(), F_OK) == 0)
        return nullptr;  // no v1 freezer hierarchy (its root has no freezer.state; a group's has)
    const std::string home_path = freezer_group_of(host);
    if (home_path.empty()) return nullptr;
    ::mkdir(kParent, 0755);
    const std::string dir = std::string(kParent) + "/" + name;
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return nullptr;
    std::unique_ptr<HostFreezer> freezer(new HostFreezer(dir, std::string(kFreezerRoot) + (home_path == "/" ? "" : home_path)));
    // A process forked after its parent moved is born inside; one forked before is found by the next look.
    const std::string inside = std::string("/actionhost/") + name;
    for (int look = 0; look < kMaxAdoptLooks; ++look) {
        bool moved = false;
        for (const auto &p : process_tree(host)) {
            if (freezer_group_of(p.pid) == inside) continue;
            moved = move_into(dir, p.pid) || moved;
        }
        if (!moved) break;
    }
    if (freezer_group_of(host) != inside) return nullptr;  // the destructor gives back what moved
    return freezer;
}

HostFreezer::~HostFreezer() { release(); }

bool HostFreezer::freeze() const { return lifetime::freeze_cgroup(dir_); }
void HostFreezer::thaw() const { lifetime::thaw_cgroup(dir_); }
bool HostFreezer::frozen() const { return lifetime::cgroup_frozen(dir_); }

void HostFreezer::kill_all(double timeout_s) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (int round = 0; round < 100'000; ++round) {
        const auto pids = procs_of(dir_);
        if (pids.empty() || std::chrono::steady_clock::now() >= deadline) return;
        thaw();  // a frozen process keeps its SIGKILL pending
        for (pid_t pid : pids) ::kill(pid, SIGKILL);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void HostFreezer::release() {
    if (dir_.empty()) return;
    thaw();
    move_all(dir_, home_);
    ::rmdir(dir_.c_str());
    dir_.clear();
}

std::string freezer_group_name(const std::string &run_dir) {
    const std::string base = run_dir.substr(run_dir.rfind('/') + 1);
    return "local-" + (base.rfind(kRunDirPrefix, 0) == 0 ? base.substr(std::string(kRunDirPrefix).size()) : base);
}

void sweep_freezer_groups() {
    if (::geteuid() != 0) return;
    DIR *d = ::opendir(kParent);
    if (d == nullptr) return;
    std::vector<std::string> names;
    for (dirent *e = ::readdir(d); e != nullptr; e = ::readdir(d))
        if (e->d_type == DT_DIR && std::string(e->d_name).rfind("local-", 0) == 0) names.emplace_back(e->d_name);
    ::closedir(d);
    for (const auto &name : names) {
        // A group lives as long as its host: the host holds its run directory's owner lock
        // (owned_dir.hpp), frozen or not. A host in another TMPDIR is not seen from here: its group is
        // at worst thawed, which its keeper takes for someone else's resume, and never removed while a
        // process is in it.
        const std::string run_dir = runtime_support::temp_root() + "/" + kRunDirPrefix + name.substr(6);
        if (runtime_support::dir_owner(run_dir) == runtime_support::DirOwner::Alive) continue;
        const std::string dir = std::string(kParent) + "/" + name;
        lifetime::thaw_cgroup(dir);
        if (procs_of(dir).empty()) ::rmdir(dir.c_str());
    }
}

}  // namespace actionhost::local_runtime
