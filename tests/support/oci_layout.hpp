// OCI image layouts made by tests: a busybox or Debian root tarred (GNU tar) into a layer, or layers
// crafted by a test (Python's tarfile for the hostile ones), written as index.json + blobs/sha256/... with
// a config naming the layers' diff ids. What the tests then import (oci:DIR:TAG), convert with skopeo
// (docker-archive:FILE) or push to a registry the test started.
#pragma once

#include <string>
#include <vector>

namespace actionhost::testing {

struct OciLayer {
    std::string tar;    // an uncompressed tar file
    bool gzip = true;   // stored gzip-compressed (as registries hold layers), else as it is
};

// Writes the layout `dir` (created) holding one image tagged `tag` of `layers` (bottom first) with the
// config environment `env`. Returns "" or why not.
std::string write_oci_layout(const std::string &dir, const std::string &tag, const std::vector<OciLayer> &layers,
                             const std::vector<std::string> &env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"});

// A layer tar of everything below `root` (numeric owners kept). Returns "" or why not.
std::string tar_directory(const std::string &root, const std::string &tar);

// The hex SHA-256 of a file (""  when it cannot be read).
std::string sha256_of_file(const std::string &path);

// `skopeo copy` from `from` to `to` (e.g. oci:DIR:TAG → docker://127.0.0.1:5000/x:1), plain http
// allowed, with `creds` ("user:password") for the destination when given. Returns "" or why not.
std::string skopeo_copy(const std::string &from, const std::string &to, const std::string &creds = "");

}  // namespace actionhost::testing
