#include "workspace_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <filesystem>
#include <vector>

#include <actionhost/common/open_without_links.hpp>

namespace actionhost::sandbox_runtime {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinks = 40;  // as the kernel's own limit on links followed in one lookup

std::deque<std::string> names_of(const fs::path &p) {
    std::deque<std::string> names;
    for (const auto &part : p.relative_path()) names.push_back(part.string());
    return names;
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

common::Result<std::string> resolve_workspace(const std::string &path) {
    if (path.empty()) return common::fail("the workspace path is empty");
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    if (ec) return common::fail("the workspace " + path + " cannot be made absolute: " + ec.message());
    std::deque<std::string> pending = names_of(absolute);
    fs::path resolved = "/";
    int links = 0;
    while (!pending.empty()) {
        const std::string name = pending.front();
        pending.pop_front();
        if (name.empty() || name == ".") continue;
        if (name == "..") {  // `resolved` has no link in it: its parent is its lexical parent
            resolved = resolved.parent_path();
            continue;
        }
        const fs::path next = resolved / name;
        struct stat st{};
        if (::lstat(next.c_str(), &st) != 0) {
            if (errno != ENOENT) return common::fail("the workspace " + path + " cannot be resolved at " + next.string(), errno);
            // Missing from here on: created by make_workspace, the names as given.
            fs::path rest = next;
            for (const auto &n : pending) rest /= n;
            return rest.lexically_normal().string();
        }
        if (S_ISLNK(st.st_mode)) {
            if (st.st_uid != 0 && st.st_uid != ::geteuid())
                return common::fail("refusing the workspace " + path + ": it passes through the symbolic link " + next.string() +
                                    " of uid " + std::to_string(st.st_uid) + ", who could point it anywhere");
            if (++links > kMaxLinks) return common::fail("the workspace " + path + " passes through too many symbolic links");
            const fs::path target = fs::read_symlink(next, ec);
            if (ec) return common::fail("the workspace " + path + " cannot be resolved at " + next.string() + ": " + ec.message());
            std::deque<std::string> names = names_of(target);
            pending.insert(pending.begin(), names.begin(), names.end());
            if (target.is_absolute()) resolved = "/";
            continue;
        }
        if (!S_ISDIR(st.st_mode)) return common::fail("the workspace " + path + " is not a directory: " + next.string() + " is not one");
        resolved = next;
    }
    return resolved.string();
}

common::Status make_workspace(const std::string &resolved) {
    // The deepest directory that exists, opened refusing any link on its path.
    fs::path existing = resolved;
    std::vector<std::string> missing;
    struct stat st{};
    while (::lstat(existing.c_str(), &st) != 0) {
        if (errno != ENOENT || existing == existing.root_path()) return common::fail("cannot create the workspace " + resolved, errno);
        missing.push_back(existing.filename().string());
        existing = existing.parent_path();
    }
    Fd dir{common::open_without_links(AT_FDCWD, existing.string(), O_PATH | O_DIRECTORY)};
    if (dir.fd < 0)
        return common::fail("refusing the workspace " + resolved + ": " + existing.string() +
                                (errno == ELOOP ? " was replaced by a symbolic link" : " cannot be opened"),
                            errno);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (::mkdirat(dir.fd, it->c_str(), 0755) != 0 && errno != EEXIST)
            return common::fail("cannot create the workspace " + resolved + " (" + *it + ")", errno);
        Fd sub{::openat(dir.fd, it->c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
        if (sub.fd < 0) return common::fail("refusing the workspace " + resolved + ": " + *it + " is not a directory of its own", errno);
        std::swap(dir.fd, sub.fd);
    }
    return common::ok();
}

}  // namespace actionhost::sandbox_runtime
