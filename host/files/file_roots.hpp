// Which paths the host's own file actions (`read`, `write`) and endpoints (/list_files, /upload_file,
// /download_files) may touch. ACTIONHOST_EDITOR_ROOTS (colon-separated absolute directories), the setting
// that already confines the editor, confines these too, so one setting covers every file path an agent
// can name, judged by the same rule as the editor (common/path_policy.hpp). Unset: the whole file system,
// as OpenHands.
#pragma once

#include <string>

#include <actionhost/common/result.hpp>

namespace actionhost::host {

// Sets the allowed roots from the setting's value (called once at start-up, before serving).
void configure_file_roots(const std::string &spec);

// Success when the host may touch the absolute path `path`, else why not. A NUL byte is always refused:
// the system calls would silently act on the path cut at the NUL.
common::Status file_access(const std::string &path);

// Opens the existing regular file `path` for reading (O_CLOEXEC; the descriptor is the caller's to
// close), as the host's endpoints that hand a file out must: the path is resolved, checked against the
// roots, then opened by its resolved name with no symbolic link allowed on the way (openat2
// RESOLVE_NO_SYMLINKS), so a link swapped in after the check cannot lead the read elsewhere; a FIFO or
// device is refused without blocking on it. A failure's sys_errno is the errno when it could not be
// opened ("[Errno N] ...: 'path'"), 0 when it may not be read (outside the roots, not a regular file).
common::Result<int> open_confined_regular_file(const std::string &path);

}  // namespace actionhost::host
