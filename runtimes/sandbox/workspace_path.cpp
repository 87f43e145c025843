#include "workspace_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/open_without_links.hpp>
#include <actionhost/common/trusted_path.hpp>

namespace actionhost::sandbox_runtime {
namespace {

namespace fs = std::filesystem;

}  // namespace

common::Result<std::string> resolve_workspace(const std::string &path) {
    auto resolved = common::resolve_through_trusted_links(path, "the workspace " + path);
    if (!resolved) return resolved;
    struct stat st{};
    if (::lstat(resolved.value().c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
        return common::fail("the workspace " + path + " is not a directory: " + resolved.value() + " is not one");
    return resolved;
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
    common::io::UniqueFd dir(common::open_without_links(AT_FDCWD, existing.string(), O_PATH | O_DIRECTORY));
    if (!dir)
        return common::fail("refusing the workspace " + resolved + ": " + existing.string() +
                                (errno == ELOOP ? " was replaced by a symbolic link" : " cannot be opened"),
                            errno);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (::mkdirat(dir.get(), it->c_str(), 0755) != 0 && errno != EEXIST)
            return common::fail("cannot create the workspace " + resolved + " (" + *it + ")", errno);
        common::io::UniqueFd sub(::openat(dir.get(), it->c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!sub) return common::fail("refusing the workspace " + resolved + ": " + *it + " is not a directory of its own", errno);
        dir = std::move(sub);
    }
    return common::ok();
}

}  // namespace actionhost::sandbox_runtime
