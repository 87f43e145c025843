#include "process_tree.hpp"

#include <dirent.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "support/proc_file.hpp"

namespace reliability_test {

std::vector<ProcInfo> all_processes() {
    std::vector<ProcInfo> out;
    DIR *d = ::opendir("/proc");
    if (d == nullptr) return out;
    while (dirent *e = ::readdir(d)) {
        char *end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0') continue;
        const std::string dir = std::string("/proc/") + e->d_name;
        const std::string stat = actionhost::testing::read_proc_file(dir + "/stat");
        const size_t open = stat.find('('), close = stat.rfind(')');
        if (open == std::string::npos || close == std::string::npos) continue;
        ProcInfo p;
        p.pid = static_cast<pid_t>(pid);
        p.comm = stat.substr(open + 1, close - open - 1);
        std::istringstream rest(stat.substr(close + 1));
        rest >> p.state >> p.ppid;
        p.cmdline = actionhost::testing::read_proc_file(dir + "/cmdline");
        for (char &c : p.cmdline)
            if (c == '\0') c = ' ';
        out.push_back(std::move(p));
    }
    ::closedir(d);
    return out;
}

std::vector<ProcInfo> descendants(pid_t root) {
    const auto all = all_processes();
    std::multimap<pid_t, const ProcInfo *> children;
    for (const auto &p : all) children.emplace(p.ppid, &p);
    std::vector<ProcInfo> out;
    std::vector<pid_t> todo = {root};
    for (size_t i = 0; i < todo.size() && i < 100000; ++i) {
        auto [b, e] = children.equal_range(todo[i]);
        for (auto it = b; it != e; ++it) {
            out.push_back(*it->second);
            todo.push_back(it->second->pid);
        }
    }
    return out;
}

bool wait_for(double timeout_s, const std::function<bool()> &pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        if (pred()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

}  // namespace reliability_test
