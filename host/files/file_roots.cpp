#include "files/file_roots.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace actionhost::host {

namespace {

std::vector<std::string> &roots() {
    static std::vector<std::string> r;  // written once before the server starts, read-only afterwards
    return r;
}

// realpath of the longest existing prefix with the missing rest appended (a new file's path resolves too).
std::string resolve(const std::string &path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    return ec ? std::filesystem::path(path).lexically_normal().string() : p.string();
}

bool under(const std::string &path, const std::string &root) {
    if (root == "/") return true;
    return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

}  // namespace

void configure_file_roots(const std::string &spec) {
    roots().clear();
    size_t i = 0;
    while (i <= spec.size()) {
        size_t j = spec.find(':', i);
        if (j == std::string::npos) j = spec.size();
        std::string root = spec.substr(i, j - i);
        if (!root.empty() && root.front() == '/') {
            root = resolve(root);
            while (root.size() > 1 && root.back() == '/') root.pop_back();
            roots().push_back(root);
        }
        i = j + 1;
    }
}

std::optional<std::string> file_access_refusal(const std::string &path) {
    if (path.find('\0') != std::string::npos) return "The path contains a NUL byte; nothing was done.";
    if (roots().empty()) return std::nullopt;
    const std::string real = resolve(path);
    for (const auto &r : roots())
        if (under(real, r)) return std::nullopt;
    std::string list;
    for (const auto &r : roots()) list += (list.empty() ? "" : ", ") + r;
    return "The path " + path + (real != path ? " resolves to " + real + ", which is" : " is") +
           " outside the directories the host may access: " + list + " (ACTIONHOST_EDITOR_ROOTS).";
}

ConfinedFile open_confined_regular_file(const std::string &path) {
    ConfinedFile out;
    if (auto refused = file_access_refusal(path)) {
        out.refusal = *refused;
        return out;
    }
    char real[PATH_MAX];
    if (::realpath(path.c_str(), real) == nullptr) {
        out.error = errno;
        return out;
    }
    if (auto refused = file_access_refusal(real)) {  // changed since the first look
        out.refusal = *refused;
        return out;
    }
    open_how how{};
    how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const int fd = static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, real, &how, sizeof how));
    if (fd < 0) {
        out.error = errno == ELOOP ? ENOENT : errno;  // a link appeared on the way: the file we checked is gone
        return out;
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        out.refusal = "The path " + path + " is not a regular file.";
        return out;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    out.fd = fd;
    return out;
}

}  // namespace actionhost::host
