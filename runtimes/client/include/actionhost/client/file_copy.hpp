// copy_to / copy_from as OpenHands' runtime offers them (over /upload_file and /download_files), for
// any backend:
//   copy_to(local, dest)   a file → <dest>/<name>; a directory → zipped with names relative to its
//                          parent (its own name kept) and sent with recursive=true → <dest>/<dir>/...
//   copy_from(path)        the zip /download_files makes of a sandbox directory; for a file (whose
//                          download is an empty zip) the file is first copied into a private temporary
//                          directory in the sandbox, which is downloaded and removed.
#pragma once

#include <string>
#include <vector>

#include "actionhost/client/wire_client.hpp"

namespace actionhost::client {

// Throws WireError (a missing local source fails before anything is sent, as OpenHands'
// FileNotFoundError).
void copy_to(WireClient &wire, const std::string &local_src, const std::string &sandbox_dest, bool recursive = false);

// The zip of `sandbox_path` (names relative to it for a directory; the file's own name for a file).
// Throws WireError ("404: File not found" for a missing path).
std::string copy_from(WireClient &wire, const std::string &sandbox_path);

// copy_from, unpacked below `local_dir` (created): a directory arrives as <local_dir>/<its name>/...,
// a file as <local_dir>/<its name>. Entries that would land outside `local_dir` are refused. Returns
// the local paths written.
std::vector<std::string> copy_from_into(WireClient &wire, const std::string &sandbox_path, const std::string &local_dir);

// One entry of a zip held in memory.
struct ZipEntry {
    std::string name;     // as stored, '/'-separated
    std::string content;
};
// Reads every file entry of a zip (directories skipped). Throws std::runtime_error for a bad archive.
std::vector<ZipEntry> read_zip(const std::string &zip_bytes);

}  // namespace actionhost::client
