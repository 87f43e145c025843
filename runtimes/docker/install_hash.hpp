// The host bundle tree's content hash (the `source` tag of image_build.hpp), remembered between starts.
// Hashing the tree (~40 MB; a build tree was ~200 MB, 1.4 s) on every docker start in image mode costs
// time for nothing; the tree rarely changes,
// so the digest is kept in a cache file keyed by a signature of every file's path, size, mtime (ns)
// and inode — as git's index and ccache's direct mode trust file metadata. A file changed in place
// changes its mtime and the digest is computed again; files modified in the last 2 s are not trusted
// (a build may still be writing them) and leave nothing cached.
#pragma once

#include <string>

namespace docker {

// MD5 over every file of the tree: relative paths and contents (sorted; hidden directories, __pycache__
// and *.pyc left out, as OpenHands' dirhash ignores them), hex. Always computed.
std::string install_tree_hash(const std::string &install_dir);

// install_tree_hash through the cache file `cache_path` ("" → $XDG_CACHE_HOME or ~/.cache
// /actionhost/install-tree-hashes.json). A cache that cannot be read or written is ignored.
std::string cached_install_tree_hash(const std::string &install_dir, const std::string &cache_path = "");

}  // namespace docker
