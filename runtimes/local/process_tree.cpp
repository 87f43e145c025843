#include "process_tree.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <actionhost/common/process_state.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

namespace actionhost::local_runtime {

using runtime_support::current_boot_id;
using runtime_support::is_running;

namespace {

constexpr size_t kMaxProcesses = 1'000'000;  // a bound on the walk of /proc
constexpr int kMaxStopLooks = 50;            // each look stops what the one before missed

struct Entry {
    pid_t ppid = 0;
    unsigned long long start_ticks = 0;
};

// Every process of `proc`: parent and start time, from <pid>/stat (the name, in parentheses, may hold
// spaces and parentheses itself: the fields are counted after its last ')').
std::map<pid_t, Entry> all_processes(const std::string &proc) {
    std::map<pid_t, Entry> out;
    DIR *d = ::opendir(proc.c_str());
    if (d == nullptr) return out;
    for (dirent *e = ::readdir(d); e != nullptr && out.size() < kMaxProcesses; e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            continue;
        std::ifstream in(proc + "/" + name + "/stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(text.substr(close + 1));
        std::string state, field;
        Entry entry;
        fields >> state >> entry.ppid;
        for (int i = 5; i < 22 && fields >> field; ++i) {
        }
        if (!(fields >> entry.start_ticks) || state == "Z" || state == "X") continue;
        out[static_cast<pid_t>(std::stol(name))] = entry;
    }
    ::closedir(d);
    return out;
}

}  // namespace

std::vector<ProcessIdentity> process_tree(pid_t root, const std::string &proc) {
    const auto processes = all_processes(proc);
    const auto found = processes.find(root);
    if (found == processes.end()) return {};
    std::multimap<pid_t, pid_t> children;
    for (const auto &[pid, entry] : processes) children.emplace(entry.ppid, pid);
    std::vector<ProcessIdentity> tree{{root, found->second.start_ticks, current_boot_id()}};
    for (size_t i = 0; i < tree.size() && tree.size() < kMaxProcesses; ++i) {
        const auto [first, last] = children.equal_range(tree[i].pid);
        for (auto it = first; it != last; ++it)
            tree.push_back({it->second, processes.at(it->second).start_ticks, current_boot_id()});
    }
    return tree;
}

namespace {

// Through a pidfd when the kernel has them: checked once, the signal reaches that process only.
void signal_process(const ProcessIdentity &id, int sig) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, id.pid, 0));
    if (pidfd >= 0) {
        if (is_running(id)) ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0);
        ::close(pidfd);
        return;
    }
    if (is_running(id)) ::kill(id.pid, sig);
}

bool known(const std::vector<ProcessIdentity> &list, const ProcessIdentity &p) {
    return std::any_of(list.begin(), list.end(), [&](const ProcessIdentity &q) { return q.pid == p.pid && q.start_ticks == p.start_ticks; });
}

}  // namespace

bool StoppedTree::stop(pid_t root) {
    for (int look = 0; look < kMaxStopLooks; ++look) {
        bool found_new = false;
        for (const auto &p : process_tree(root)) {
            if (known(stopped_, p)) continue;
            signal_process(p, SIGSTOP);
            stopped_.push_back(p);
            found_new = true;
        }
        if (!found_new) break;
    }
    return !stopped_.empty();
}

void StoppedTree::resume() {
    for (const auto &p : stopped_) signal_process(p, SIGCONT);
    stopped_.clear();
}

void kill_processes(const std::vector<ProcessIdentity> &processes) {
    for (const auto &p : processes) signal_process(p, SIGKILL);
}

}  // namespace actionhost::local_runtime
