#include "support/socket_holders.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace actionhost::testing {
namespace {

constexpr const char *kListenState = "0A";

void read_table(const char *table, std::vector<ListeningSocket> &out) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
        if (!(f >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode)) continue;
        const auto colon = local.rfind(':');
        if (colon == std::string::npos || state != kListenState) continue;
        out.push_back({static_cast<int>(std::strtol(local.c_str() + colon + 1, nullptr, 16)), "socket:[" + inode + "]"});
    }
}

}  // namespace

std::vector<ListeningSocket> listening_sockets() {
    std::vector<ListeningSocket> out;
    read_table("/proc/net/tcp", out);
    read_table("/proc/net/tcp6", out);
    return out;
}

std::set<pid_t> processes_holding_listener(int port) {
    std::set<std::string> inodes;
    for (const auto &l : listening_sockets())
        if (l.port == port) inodes.insert(l.inode);
    std::set<pid_t> holders;
    if (inodes.empty()) return holders;
    DIR *proc = opendir("/proc");
    if (proc == nullptr) return holders;
    while (dirent *e = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
        if (pid <= 0) continue;
        const std::string fd_dir = "/proc/" + std::string(e->d_name) + "/fd";
        DIR *fds = opendir(fd_dir.c_str());
        if (fds == nullptr) continue;
        while (dirent *fd = readdir(fds)) {
            char target[128];
            const ssize_t n = readlink((fd_dir + "/" + fd->d_name).c_str(), target, sizeof target - 1);
            if (n <= 0) continue;
            target[n] = '\0';
            if (inodes.count(target) != 0) {
                holders.insert(pid);
                break;
            }
        }
        closedir(fds);
    }
    closedir(proc);
    return holders;
}

}  // namespace actionhost::testing
