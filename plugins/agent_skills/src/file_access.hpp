// File system access with the editor's safety rules: allowed roots (symlinks resolved, so a link
// cannot point out), refusal of device files, FIFOs and sockets, Python-worded OS errors, and atomic
// writes (temp file in the same directory, optional fsync, rename) that keep the file's mode and owner.
#pragma once

#include <actionhost/common/path_policy.hpp>
#include <actionhost/common/result.hpp>
#include <actionhost/common/text.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::agent_skills {

using common::PathPolicy;
// The editor's confinement: `roots_spec` as PathPolicy takes it (colon-separated absolute directories;
// empty: the whole file system), its refusals worded for the editor.
PathPolicy editor_path_policy(const std::string &roots_spec);

enum class FileKind { missing, regular, directory, other };
struct FileInfo {
    FileKind kind = FileKind::missing;
    std::string other_kind;  // "character device", "block device", "FIFO", "socket" when kind == other
    long long size = 0;
    long long mtime_ns = 0;
};
FileInfo stat_path(const std::string &path);  // follows symlinks, as Path.exists()/is_dir() do

// "[Errno 13] Permission denied: '<path>'" (common/text.hpp).
using common::os_error_text;

// Reads up to `max_bytes` (all when 0). A failure's message is os_error_text, its sys_errno the errno.
common::Result<std::string> read_bytes(const std::string &path, size_t max_bytes);

// Replaces `path`'s content atomically. An existing file keeps its mode and owner (written through a
// symlink to its target); a new file gets 0666 & ~umask and the parents it needs. Where the temp-file
// route is impossible (directory not writable, owner not settable) the file is rewritten in place.
// `durable`: fsync the temp file before the rename (survives power loss, costs a journal commit).
// Without it the write is still all-or-nothing for every reader and against a crash of any process:
// a complete file is swapped in (an exchange of names where the file system has it, else a rename),
// but an edit of the last seconds before a power loss may be lost or leave the file empty.
// Fails with os_error_text (and the errno).
common::Status write_atomic(const std::string &path, const std::string &bytes, bool durable = false);

// ACTIONHOST_EDITOR_FSYNC: "1", "true", "True" or "yes" turn the fsync on; unset or anything else
// leaves it off (OpenHands' editor never fsyncs; an fsync costs a journal commit, milliseconds).
bool editor_fsync_enabled(const char *setting);

}  // namespace actionhost::agent_skills
