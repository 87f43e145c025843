// Temporary directories that say whether their owner still lives, so that whatever a crashed, killed
// or rebooted-away owner left can be found and removed by the next process that looks.
//
// The owner holds an exclusive flock on <dir>/owner.lock. The kernel drops it the moment the last
// holder of that open file ends — exit, crash, SIGKILL, reboot — so a free lock means the owner is gone.
// No pid is compared: a recycled pid or a pid from before a reboot fools nothing. The descriptor can be
// handed to a child (SpawnOptions::keep_fds): the directory then lives exactly as long as that child.
//
// Such a child may serve a client that ends it when the client dies (ah-sandbox-init ends its sandbox
// when the backend's process is gone, until the sandbox is kept alive). The client then holds
// <dir>/client.lock until it releases the directory to the owner for good (<dir>/released). A sweep
// that finds the client gone and the directory not released knows the owner is ending and waits for it
// (a few seconds at most) instead of passing the directory by: what a killed client leaves is gone
// after the very next sweep, not the one after.
#pragma once

#include <functional>
#include <string>

namespace actionhost::runtime_support {

struct OwnedDir {
    std::string path;
    int lock_fd = -1;    // close-on-exec; closing the last copy of it gives the directory up
    int client_fd = -1;  // client.lock, when made for a client (close-on-exec)
};

// A new directory <temp_root()>/<prefix>XXXXXX, owned by this process through the returned lock_fd
// (and, `for_client`, with client.lock held through client_fd). It appears with its locks already held
// (made under a hidden staging name, then renamed). Throws std::runtime_error.
OwnedDir make_owned_temp_dir(const std::string &prefix, bool for_client = false);

// The client gives the directory to its owner for good (the owner outlives it from now on): marks it
// released, then closes `client_fd`.
void release_to_owner(const std::string &dir, int &client_fd);

enum class DirOwner {
    Alive,    // someone holds the lock
    Gone,     // the lock is free: the owner ended
    Unknown,  // no lock file (made by a version without owner locks), or not ours to judge
};

// Whether the owner of `dir` lives. On Gone, when `taken` is given, it receives a descriptor now
// holding the lock: no one else takes the directory for gone while the caller removes it (close it
// after).
DirOwner dir_owner(const std::string &dir, int *taken = nullptr);

// Every directory <temp_root()>/<prefix>* of this user whose owner is gone (waited for when its client is
// gone and it was not released): `on_gone(path)` is called with the lock held, then the directory is
// removed (remove_tree.hpp). Directories without a lock file are left alone (a version without owner
// locks made them, and may be using them); staging directories .<prefix>* over a minute old are
// removed. Returns how many were removed.
size_t sweep_abandoned_dirs(const std::string &prefix, const std::function<void(const std::string &path)> &on_gone);

}  // namespace actionhost::runtime_support
