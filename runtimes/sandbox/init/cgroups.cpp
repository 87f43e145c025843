#include "cgroups.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace sandbox {

namespace fs = std::filesystem;

namespace {

bool write_text(const std::string &path, const std::string &text) {
    std::ofstream out(path);
    out << text;
    out.flush();
    return static_cast<bool>(out);
}

std::string read_text(const std::string &path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

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

Cgroup::Cgroup(const std::string &name, const Limits &limits) {
    std::error_code ec;
    if (cgroup_v2_usable()) {
        std::string root = fs::exists("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
        std::string parent = root + "/actionhost";
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
        } else if (std::string(w.controller) == "pids") {
            ok = write_text(dir + "/pids.max", std::to_string(limits.pids));
        } else if (std::string(w.controller) == "cpu") {
            ok = write_text(dir + "/cpu.cfs_period_us", "100000") &&
                 write_text(dir + "/cpu.cfs_quota_us", std::to_string(static_cast<long>(limits.cpus * 100000)));
        }
        if (!ok) warnings_.push_back(std::string("cannot set the ") + w.controller + " limit in " + dir);
    }
}

void Cgroup::join(pid_t pid) {
    for (const auto &dir : paths_)
        if (!write_text(dir + "/cgroup.procs", std::to_string(pid))) warnings_.push_back("cannot join " + dir);
}

void Cgroup::remove(double timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (const auto &dir : paths_) {
        for (int i = 0; i < 10000; ++i) {
            if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) break;
            if (std::chrono::steady_clock::now() >= deadline) break;
            // A frozen group never empties: thaw it first.
            if (dir.find("/freezer/") != std::string::npos) write_text(dir + "/freezer.state", "THAWED");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
}

}  // namespace sandbox
