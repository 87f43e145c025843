#include <actionhost/runtime_support/directory_watch.hpp>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace actionhost::runtime_support {

namespace {

// The process's one inotify instance and who is waiting on it. One waiter at a time reads the
// descriptor (the reader); the others sleep on the condition until it has read or given up, so every
// waiter sees every event as a new generation, whoever read it.
struct Watcher {
    int fd = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    std::mutex mutex;
    std::condition_variable changed;
    bool reading = false;
    uint64_t generation = 0;
    std::map<int, int> users;  // watch descriptor → DirectoryWatch objects sharing it
};

// Never destroyed: the descriptor stays open until the process ends (see the header), and a thread
// still waiting while static objects are destroyed finds its mutex intact.
Watcher &watcher() {
    static Watcher *const w = new Watcher;
    return *w;
}

constexpr uint32_t kEvents = IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE;

}  // namespace

DirectoryWatch::DirectoryWatch(const std::string &dir) {
    Watcher &w = watcher();
    if (w.fd < 0) return;
    std::lock_guard<std::mutex> lock(w.mutex);
    const int wd = ::inotify_add_watch(w.fd, dir.empty() ? "." : dir.c_str(), kEvents);
    if (wd < 0) return;
    ++w.users[wd];
    wd_ = wd;
}

DirectoryWatch::~DirectoryWatch() {
    if (wd_ < 0) return;
    Watcher &w = watcher();
    std::lock_guard<std::mutex> lock(w.mutex);
    auto it = w.users.find(wd_);
    if (it == w.users.end() || --it->second > 0) return;
    w.users.erase(it);
    // Fails harmlessly when the kernel already dropped the watch (its directory was removed).
    ::inotify_rm_watch(w.fd, wd_);
}

uint64_t DirectoryWatch::generation() const {
    Watcher &w = watcher();
    std::lock_guard<std::mutex> lock(w.mutex);
    return w.generation;
}

void DirectoryWatch::wait(uint64_t seen, std::chrono::milliseconds timeout) const {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    if (wd_ < 0) {
        std::this_thread::sleep_until(deadline);
        return;
    }
    Watcher &w = watcher();
    std::unique_lock<std::mutex> lock(w.mutex);
    // Bounded: each round either reads, times out or is woken by the reader's end.
    for (int round = 0; round < 100'000 && w.generation == seen; ++round) {
        const auto now = Clock::now();
        if (now >= deadline) return;
        if (w.reading) {
            w.changed.wait_until(lock, deadline);
            continue;
        }
        w.reading = true;
        lock.unlock();
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
        pollfd p{w.fd, POLLIN, 0};
        bool any = false;
        if (::poll(&p, 1, static_cast<int>(left.count())) > 0) {
            char events[4096];
            while (::read(w.fd, events, sizeof events) > 0) any = true;
        }
        lock.lock();
        w.reading = false;
        if (any) ++w.generation;
        w.changed.notify_all();  // the new generation for all, or the reader's turn for the next
    }
}

}  // namespace actionhost::runtime_support
