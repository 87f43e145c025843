#include "sys/orphan_reaper.hpp"

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include <actionhost/common/process_state.hpp>

namespace actionhost::host {

OrphanReaper::OrphanReaper(std::chrono::milliseconds grace, std::chrono::milliseconds interval)
    : grace_(grace), interval_(interval) {}

OrphanReaper::~OrphanReaper() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool OrphanReaper::start(bool subreaper) {
    if (::getpid() != 1) {
        if (!subreaper || ::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return false;
    }
    thread_ = std::thread([this] {
        std::unique_lock lock(mu_);
        while (!cv_.wait_for(lock, interval_, [&] { return stop_; })) {
            lock.unlock();
            scan_once();
            lock.lock();
        }
    });
    return true;
}

int OrphanReaper::scan_once() {
    const pid_t self = ::getpid();
    const auto now = std::chrono::steady_clock::now();
    std::set<pid_t> zombies;
    if (DIR *d = ::opendir("/proc")) {
        while (dirent *e = ::readdir(d)) {
            char *end = nullptr;
            const long pid = std::strtol(e->d_name, &end, 10);
            if (end == e->d_name || *end != '\0' || pid <= 0) continue;
            if (auto stat = common::read_process_stat(static_cast<pid_t>(pid)); stat && stat->ppid == self && stat->state == 'Z')
                zombies.insert(static_cast<pid_t>(pid));
        }
        ::closedir(d);
    }
    for (pid_t z : zombies) first_seen_zombie_.emplace(z, now);  // keeps the first sighting
    int reaped = 0;
    for (auto it = first_seen_zombie_.begin(); it != first_seen_zombie_.end();) {
        if (!zombies.count(it->first)) {  // reaped by its owner, or gone
            it = first_seen_zombie_.erase(it);
            continue;
        }
        if (now - it->second >= grace_) {
            int status = 0;
            if (::waitpid(it->first, &status, WNOHANG) == it->first) ++reaped;
            it = first_seen_zombie_.erase(it);
            continue;
        }
        ++it;
    }
    reaped_ += reaped;
    return reaped;
}

}  // namespace actionhost::host
