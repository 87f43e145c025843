#include "support/proc_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace actionhost::testing {

std::string read_proc_file(const std::string &path) {
    std::string out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    char buf[4096];
    for (int i = 0; i < 4096; ++i) {  // bounded: /proc files are small
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
}

long status_number(const std::string &status_path, const std::string &field) {
    const std::string status = "\n" + read_proc_file(status_path);
    const std::string key = "\n" + field + ":";
    const size_t at = status.find(key);
    if (at == std::string::npos) return -1;
    return std::strtol(status.c_str() + at + key.size(), nullptr, 10);
}

long resident_kib(int pid) { return status_number("/proc/" + std::to_string(pid) + "/status", "VmRSS"); }

}  // namespace actionhost::testing
