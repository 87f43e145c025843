// Root filesystems the host is run in by the image tests, made here from Debian packages, no registry:
//  - busybox: busybox-static and its applets, /etc/passwd and the usual directories; no bash, no python
//  - Debian 12 minbase with python3-ipykernel, made by mmdebstrap once per machine and kept as a tar in
//    $AH_TEST_IMAGE_CACHE or /var/tmp/actionhost-test-images (about 25 s to make with a warm mirror;
//    every later test binary and run reuses it, as dockerd keeps the images imported from it)
#pragma once

#include <string>

namespace actionhost::testing {

// Fills `dir` with the busybox root. Returns "" or why it could not.
std::string make_busybox_rootfs(const std::string &dir);

// The Debian root as a tar (made when missing; concurrent callers wait for one maker). Returns its path,
// or "" with `why_not` set (no mmdebstrap, no mirror).
std::string debian_rootfs_tar(std::string &why_not);

// Unpacks a rootfs tar into `dir` (device nodes left out). Returns "" or why not.
std::string unpack_rootfs(const std::string &tar, const std::string &dir);

// The bundle tree of this build (build/dist: actionhost/ and micromamba/), or "" when it was not built.
std::string bundle_dir();

}  // namespace actionhost::testing
