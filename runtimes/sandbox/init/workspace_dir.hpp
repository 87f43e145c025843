// The workspace as one directory, not a name: opened once by a path with no symbolic link in it, and
// known afterwards by its identity (device and inode).
//
// Every step of a start that uses the workspace (the system-directory check, the handover to the
// sandbox's ids, the bind mount in the new mount namespace) would otherwise resolve its name again.
// Whoever can write a directory on that path (another user of the machine, or the agent of a sandbox
// whose workspace holds it) could swap a part of it for a symbolic link between two steps and have a
// directory of root's checked as harmless, then handed over and mounted. Opened with
// RESOLVE_NO_SYMLINKS, a swapped link fails the open; the mount, made in another mount namespace (which
// cannot clone the first one's mounts through a descriptor), opens the path again and refuses anything
// that is not the same directory.
#pragma once

#include <sys/types.h>

#include <string>

namespace sandbox {

struct DirIdentity {
    dev_t dev = 0;
    ino_t ino = 0;
    bool operator==(const DirIdentity &) const = default;
};

// The workspace directory, open: `path` (absolute, as the backend resolved it) opened as a directory
// following no symbolic link on the way (common::open_without_links), an O_PATH handle that needs no
// read permission, held until destruction. Construction throws std::runtime_error saying why (a link on
// the path: "it passes through a symbolic link", missing, not a directory).
class WorkspaceDir {
  public:
    explicit WorkspaceDir(const std::string &path);
    ~WorkspaceDir();
    WorkspaceDir(const WorkspaceDir &) = delete;
    WorkspaceDir &operator=(const WorkspaceDir &) = delete;

    int fd() const { return fd_; }
    const DirIdentity &identity() const { return identity_; }

  private:
    int fd_ = -1;
    DirIdentity identity_;
};

}  // namespace sandbox
