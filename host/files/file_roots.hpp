// Which paths the host's own file actions (`read`, `write`) and endpoints (/list_files, /upload_file,
// /download_files) may touch. ACTIONHOST_EDITOR_ROOTS (colon-separated absolute directories), the setting
// that already confines the editor, confines these too, so one setting covers every file path an agent
// can name. Unset: the whole file system, as OpenHands. Symlinks are resolved before the check, so a
// link inside a root that points out (or a `..` that climbs out) is refused.
#pragma once

#include <optional>
#include <string>

namespace actionhost::host {

// Sets the allowed roots from the setting's value (called once at start-up, before serving).
void configure_file_roots(const std::string &spec);

// Why the host must not touch the absolute path `path`, or nullopt when it may. A NUL byte is always
// refused: the system calls would silently act on the path cut at the NUL.
std::optional<std::string> file_access_refusal(const std::string &path);

struct ConfinedFile {
    int fd = -1;          // open for reading (O_CLOEXEC), the caller's to close; -1 when refused
    int error = 0;        // errno when it could not be opened (ENOENT, EACCES, ...)
    std::string refusal;  // why the path may not be read (outside the roots, not a regular file)
};
// Opens the existing regular file `path` for reading, as the host's endpoints that hand a file out must:
// the path is resolved, checked against the roots, then opened by its resolved name with no symbolic
// link allowed on the way (openat2 RESOLVE_NO_SYMLINKS), so a link swapped in after the check cannot
// lead the read elsewhere; a FIFO or device is refused without blocking on it.
ConfinedFile open_confined_regular_file(const std::string &path);

}  // namespace actionhost::host
