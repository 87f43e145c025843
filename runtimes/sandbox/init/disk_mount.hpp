// A disk of the sandbox's own (sandbox.disk_limit): an ext4 file system in an image file the backend
// prepared, so that all the sandbox writes to disk — its overlay's upper directory, a temporary
// workspace — fits in a size fixed at start. Filling it gives ENOSPC inside; the machine loses at most
// the image's size.
//
// The image is attached to a loop device that detaches itself when its last user goes (autoclear) and
// mounted in a mount namespace of ah-sandbox-init's own (the sandbox's is a copy of it): no mount appears
// on the machine, and the file system ends with the sandbox's namespaces however the sandbox ends — no
// unmount to forget, no device left attached. Freed blocks go back to the machine (discard punches
// holes in the image file).
//
// Root callers only (loop devices and an ext4 mount need the machine's CAP_SYS_ADMIN). Runs in P, before
// anything else is set up; single-threaded.
#pragma once

#include <string>

namespace sandbox {

// Unshares P's mount namespace, attaches `image` and mounts it at `dir` (an empty directory, nosuid and
// nodev). Throws std::runtime_error naming the step and errno.
void mount_sandbox_disk(const std::string &image, const std::string &dir);

}  // namespace sandbox
