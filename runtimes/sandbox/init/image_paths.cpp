#include "image_paths.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <actionhost/common/io/unique_fd.hpp>

namespace sandbox {

namespace {

using actionhost::common::io::UniqueFd;

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

// What a link points to, for the warning ("" when unreadable).
std::string link_target(int dir_fd, const std::string &name) {
    char buf[512];
    const ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

}  // namespace

std::vector<std::string> make_paths_real(int root_fd, const std::vector<std::string> &paths) {
    std::vector<std::string> replaced;
    for (const auto &path : paths) {
        UniqueFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
        if (!dir) fail("dup the image's root");
        std::string walked;
        size_t at = 0;
        while (at < path.size()) {
            const size_t slash = path.find('/', at);
            const std::string name = path.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
            at = slash == std::string::npos ? path.size() : slash + 1;
            if (name.empty() || name == ".") continue;
            if (name == "..") throw std::runtime_error("refusing the path " + path + " inside the image");
            walked += "/" + name;
            struct stat st{};
            if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
                const std::string was = S_ISLNK(st.st_mode) ? "a link to " + link_target(dir.get(), name) : "not a directory";
                if (::unlinkat(dir.get(), name.c_str(), 0) != 0) fail("replace the image's " + walked);
                replaced.push_back("the image's " + walked + " was " + was + ": replaced by a directory");
            }
            if (::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST) fail("mkdir " + walked + " in the image");
            UniqueFd next(::openat(dir.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!next) fail("enter " + walked + " in the image");
            dir = std::move(next);
        }
    }
    return replaced;
}

}  // namespace sandbox
