// Waiting for a file to appear in a directory without polling it, for every thread of a process.
//
// One inotify instance serves the whole process, for ever. Closing an inotify instance costs the kernel
// an SRCU grace period: 15–25 ms measured on these machines, paid by whoever closes it. With an instance
// per wait, that was a third of every sandbox's start (the host's port file watched, then the watcher
// closed). Removing a watch from a kept instance costs microseconds.
// "For ever" means the instance is never closed — also not when the module that made it is unloaded:
// a backend module that uses this (wait_port_file does) says `"never_unload": true` in its manifest
// (sandbox, local), or each load would leave an instance behind, and LeakSanitizer reports the
// unreachable watcher of an unloaded module as a leak.
//
// Usage: take a DirectoryWatch on the directory, then loop { generation(); look for the file; wait() }.
// Taking the generation before looking means an entry made between the look and the wait ends that wait
// at once: nothing is missed. A wait may also end for an entry in another watched directory, or for
// none (the timeout): the caller always looks again.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace actionhost::runtime_support {

// [any-thread] Watches `dir` for entries created, moved in or closed after writing, until destroyed.
// Several watches of one directory (in one thread or many) share the kernel's watch, counted.
class DirectoryWatch {
   public:
    explicit DirectoryWatch(const std::string &dir);
    ~DirectoryWatch();
    DirectoryWatch(const DirectoryWatch &) = delete;
    DirectoryWatch &operator=(const DirectoryWatch &) = delete;

    // False when inotify is unavailable or `dir` cannot be watched: then wait() only sleeps, and the
    // caller's loop is a plain poll.
    bool active() const { return wd_ >= 0; }

    // A number that changes whenever an event of any watched directory has been seen.
    uint64_t generation() const;

    // Returns once the generation differs from `seen`, or after `timeout`, whichever is first.
    void wait(uint64_t seen, std::chrono::milliseconds timeout) const;

   private:
    int wd_ = -1;
};

}  // namespace actionhost::runtime_support
