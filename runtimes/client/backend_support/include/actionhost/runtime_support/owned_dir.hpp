// Temporary directories that say whether their owner still lives, so that whatever a crashed, killed
// or rebooted-away owner left can be found and removed by the next process that looks.
//
// The owner holds an exclusive flock on <dir>/owner.lock. The kernel drops it the moment the last
// holder of that open file ends — exit, crash, SIGKILL, reboot — so a free lock means the owner is gone.
// No pid is compared: a recycled pid or a pid from before a reboot fools nothing. The descriptor can be
// handed to a child (SpawnOptions::keep_fds): the directory then lives exactly as long as that child.
#pragma once

#include <functional>
#include <string>

namespace actionhost::runtime_support {

struct OwnedDir {
    std::string path;
    int lock_fd = -1;  // close-on-exec; closing the last copy of it gives the directory up
};

// mkdtemp of <temp_root()>/<prefix>XXXXXX, owned by this process through the returned lock_fd. The
// lock file appears already locked (it is locked under a temporary name, then renamed into place).
// Throws std::runtime_error.
OwnedDir make_owned_temp_dir(const std::string &prefix);

enum class DirOwner {
    Alive,    // someone holds the lock
    Gone,     // the lock is free: the owner ended
    Unknown,  // no lock file (being created, or made before owner locks existed), or not ours to judge
};

// Whether the owner of `dir` lives. On Gone, when `taken` is given, it receives a descriptor now
// holding the lock: no one else takes the directory for gone while the caller removes it (close it
// after).
DirOwner dir_owner(const std::string &dir, int *taken = nullptr);

// Every directory <temp_root()>/<prefix>* of this user whose owner is gone, or that has no lock file and
// was last changed over a minute ago (a creator dies between mkdtemp and the lock within microseconds;
// a live directory without a lock is one of a version before this scheme): `on_gone(path)` is called
// with the lock held, then the directory is removed (remove_tree.hpp). Returns how many were removed.
size_t sweep_abandoned_dirs(const std::string &prefix, const std::function<void(const std::string &path)> &on_gone);

}  // namespace actionhost::runtime_support
