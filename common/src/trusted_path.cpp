#include <actionhost/common/trusted_path.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <filesystem>

namespace actionhost::common {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinks = 40;  // as the kernel's own limit on links followed in one lookup

std::deque<std::string> names_of(const fs::path &p) {
    std::deque<std::string> names;
    for (const auto &part : p.relative_path()) names.push_back(part.string());
    return names;
}

}  // namespace

Result<std::string> resolve_through_trusted_links(const std::string &path, const std::string &what) {
    if (path.empty()) return fail(what + " is empty");
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    if (ec) return fail(what + " cannot be made absolute: " + ec.message());
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
            if (errno != ENOENT) return fail(what + " cannot be resolved at " + next.string(), errno);
            // Missing from here on: the names as given.
            fs::path rest = next;
            for (const auto &n : pending) rest /= n;
            return rest.lexically_normal().string();
        }
        if (S_ISLNK(st.st_mode)) {
            if (st.st_uid != 0 && st.st_uid != ::geteuid())
                return fail("refusing " + what + ": it passes through the symbolic link " + next.string() + " of uid " +
                            std::to_string(st.st_uid) + ", who could point it anywhere");
            if (++links > kMaxLinks) return fail(what + " passes through too many symbolic links");
            const fs::path target = fs::read_symlink(next, ec);
            if (ec) return fail(what + " cannot be resolved at " + next.string() + ": " + ec.message());
            std::deque<std::string> names = names_of(target);
            pending.insert(pending.begin(), names.begin(), names.end());
            if (target.is_absolute()) resolved = "/";
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (pending.empty()) return next.string();  // the last name may be a file
            return fail(what + " is not a directory: " + next.string() + " is not one");
        }
        resolved = next;
    }
    return resolved.string();
}

}  // namespace actionhost::common
