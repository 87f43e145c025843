#include "support/socket_holders.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

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

std::set<std::string> sockets_of(pid_t pid) {
    std::set<std::string> out;
    const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR *fds = opendir(fd_dir.c_str());
    if (fds == nullptr) return out;
    while (dirent *fd = readdir(fds)) {
        char target[128];
        const ssize_t n = readlink((fd_dir + "/" + fd->d_name).c_str(), target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        if (std::string_view(target).rfind("socket:[", 0) == 0) out.insert(target);
    }
    closedir(fds);
    return out;
}

std::map<int, std::set<pid_t>> tcp_listeners_held_by(const std::vector<pid_t> &pids) {
    std::map<int, std::set<pid_t>> out;
    const auto listeners = listening_sockets();
    for (pid_t pid : pids) {
        const auto held = sockets_of(pid);
        for (const auto &l : listeners)
            if (held.count(l.inode) != 0) out[l.port].insert(pid);
    }
    return out;
}

std::vector<UnixListener> unix_listeners_held_by(const std::vector<pid_t> &pids) {
    std::set<std::string> held;
    for (pid_t pid : pids) {
        const auto s = sockets_of(pid);
        held.insert(s.begin(), s.end());
    }
    // Num RefCount Protocol Flags Type St Inode [Path]; Flags has __SO_ACCEPTCON (0x10000) when listening.
    std::vector<UnixListener> out;
    std::ifstream in("/proc/net/unix");
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string slot, refs, protocol, flags, type, state, inode, path;
        if (!(f >> slot >> refs >> protocol >> flags >> type >> state >> inode)) continue;
        f >> path;
        const bool listening = (std::strtoul(flags.c_str(), nullptr, 16) & 0x10000UL) != 0;
        if (!listening || held.count("socket:[" + inode + "]") == 0) continue;
        out.push_back({path, "socket:[" + inode + "]"});
    }
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
        for (const auto &socket : sockets_of(pid)) {
            if (inodes.count(socket) != 0) {
                holders.insert(pid);
                break;
            }
        }
    }
    closedir(proc);
    return holders;
}

}  // namespace actionhost::testing
