// The file endpoints: /list_files, /upload_file, /download_files.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "files/zip_files.hpp"
#include "http/responses.hpp"

namespace actionhost::host {

// Directories first (with a trailing '/'), then files, each sorted case-insensitively; [] when the path
// is missing or not a directory. Relative paths join the initial working directory.
// With `detail` (actionhost's additive "detail": true), the same entries in the same order as objects
// {"name" (no '/'), "type": "dir"|"file"|"symlink"|"other", "size", "mode" (permission bits), "mtime"
// (seconds)}: a symbolic link is described itself, never its target (a link to a directory is "symlink").
nlohmann::json list_directory(const std::string &working_dir, const std::optional<std::string> &path,
                              bool detail = false);

struct UploadResult {
    int status;
    nlohmann::json body;
};
// Streams the multipart "file" part to disk (never into memory), then places or unpacks it.
// An archive unpacking to more than `max_unzip_bytes` is refused. With `owner`, what the upload writes
// (the file, the archive's entries, the directories of `destination` it creates) is given to it.
UploadResult handle_upload(Request &req, const std::string &destination, bool recursive,
                           uint64_t max_bytes, uint64_t max_unzip_bytes, const std::optional<FileOwner> &owner = std::nullopt);

// Whom an upload's files belong to: the user of --username when the host runs as root and that user is
// another one (OpenHands leaves them root's, which the agent cannot edit); nobody else's otherwise.
std::optional<FileOwner> upload_owner(const std::string &username);

// The file or directory at `path` as a zip (OpenHands' shape), named after it in an RFC 6266
// Content-Disposition whatever characters the name holds.
// Returns the HTTP status it answered with.
int send_download(Response &resp, const std::string &path);

}  // namespace actionhost::host
