// Replacing a file's content so that readers see the old or the new file, never a half-written one.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace actionhost::host {

struct FileOwnership {
    mode_t mode;
    uid_t uid;
    gid_t gid;
};

// Writes `content` to a temp file beside `path`, fsyncs it, applies `ownership` (mode always; owner when
// permitted), and renames it over `path`. Returns "" on success, else the OS error text; on failure
// `path` is untouched and the temp file removed.
std::string atomic_write(const std::string &path, const std::string &content, const FileOwnership &ownership);

// Current mode/owner of an existing file.
std::optional<FileOwnership> ownership_of(const std::string &path);

}  // namespace actionhost::host
