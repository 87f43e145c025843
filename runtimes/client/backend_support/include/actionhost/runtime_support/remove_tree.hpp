// Removing a directory tree that a sandbox wrote into: symbolic links are removed, never followed, and
// directories the sandbox made unwritable or unreadable (chmod 0, chmod -w) are first made the owner's
// again, so an unprivileged caller removes them too (root needs no such help, but gets the same path).
#pragma once

#include <string>

namespace actionhost::runtime_support {

// Removes `path` and everything below it. True when nothing of it remains (also when it never existed).
bool remove_tree(const std::string &path);

}  // namespace actionhost::runtime_support
