// Replacing a file's content so that readers see the old or the new file, never a half-written one.
#pragma once

#include <actionhost/common/result.hpp>
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
// permitted), and renames it over `path`. A failure carries the OS error (strerror text and errno);
// `path` is then untouched and the temp file removed.
common::Status atomic_write(const std::string &path, const std::string &content, const FileOwnership &ownership);

// Current mode/owner of an existing file.
std::optional<FileOwnership> ownership_of(const std::string &path);

}  // namespace actionhost::host
