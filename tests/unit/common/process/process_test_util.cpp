#include "process_test_util.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace actionhost::testing {

std::set<int> open_descriptors(pid_t pid) {
    std::set<int> fds;
    const std::string dir = pid == 0 ? "/proc/self/fd" : "/proc/" + std::to_string(pid) + "/fd";
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(dir, ec)) fds.insert(std::stoi(e.path().filename().string()));
    // Our own listing held one descriptor for the directory while it ran: no longer open.
    if (pid == 0) std::erase_if(fds, [](int fd) { return ::fcntl(fd, F_GETFD) < 0; });
    return fds;
}

std::set<int> descriptors_once_loaded(pid_t pid, const std::set<int> &expected) {
    std::set<int> held = open_descriptors(pid);
    for (int tries = 0; tries < 500 && held != expected; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        held = open_descriptors(pid);
    }
    return held;
}

namespace {
// Reads from `fd` until `done(text)` or end-of-file or the deadline.
template <typename Done>
std::string read_while(int fd, int timeout_ms, Done done) {
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (int i = 0; i < 100000 && !done(text); ++i) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        char buf[4096];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n > 0) text.append(buf, static_cast<size_t>(n));
    }
    return text;
}
}  // namespace

std::string read_until_eof(int fd, int timeout_ms) {
    return read_while(fd, timeout_ms, [](const std::string &) { return false; });
}

std::string read_line(int fd, int timeout_ms) {
    std::string text = read_while(fd, timeout_ms, [](const std::string &t) { return t.find('\n') != std::string::npos; });
    return text.substr(0, text.find('\n'));
}

}  // namespace actionhost::testing
