// Reading a zip archive nobody vouches for (an upload to the host, a download from a sandbox's host to the
// client) with bounded memory: every entry is checked before anything is read — names, encryption, the
// number of entries, the sizes the headers declare, the end-of-central-directory records — and then each
// entry's content is handed over piece by piece while the real bytes are counted, so a header that lies
// about sizes is caught as the bytes come (and by the entry's CRC at its end). Debian's minizip (zlib's
// contrib, unzip.h) underneath.
//
// Unix attributes (Info-ZIP's convention, what zip_writer.hpp writes): when the entry was made on Unix
// (version_made_by's high byte 3) and its external attributes carry a mode (external_fa >> 16), the
// entry's kind comes from the mode's type bits (S_IFLNK: a symbolic link whose content is its target;
// S_IFCHR/S_IFBLK/S_IFIFO/S_IFSOCK: `other`, never to be created) and its permission bits are handed over
// masked to 0777 (no setuid, setgid or sticky bit from an archive). The modification time is the 0x5455
// extended timestamp (UTC seconds) when present, else the DOS time (local time). An archive without Unix
// attributes (Python's zipfile writestr with external_attr 0, Windows tools) gives files and directories
// without a mode: the caller's default applies.
//
// The one zip reader of the tree: the host's /upload_file (host/files/zip_files.cpp) and the client's
// copies out of a sandbox (runtimes/client/src/file_copy.cpp).
//
// Threads: one ZipReader per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <actionhost/common/result.hpp>

namespace actionhost::common::archive {

struct ZipLimits {
    uint64_t max_total_bytes = 4ull << 30;  // the sum of what the entries unpack to (zip-bomb guard)
    uint64_t max_entries = 100000;
};

enum class ZipEntryKind { file, directory, symlink, other };

// The longest symbolic-link target an archive may carry (PATH_MAX).
inline constexpr uint64_t kMaxLinkTarget = 4096;

struct ZipEntryInfo {
    std::string name;            // as stored, '/'-separated; checked safe (relative, no "..", no NUL)
    bool directory = false;      // kind == directory
    uint64_t declared_size = 0;  // what the header says it unpacks to
    ZipEntryKind kind = ZipEntryKind::file;
    std::optional<uint32_t> mode;   // permission bits (& 0777) when the archive carries Unix ones
    std::optional<int64_t> mtime;   // seconds since the epoch, when the entry has a time
    uint32_t raw_mode = 0;          // external_fa >> 16 as stored (Unix archives), for messages
};

class ZipReader {
  public:
    // Opens `path` and checks every entry: a non-empty relative name without ".." components or NUL
    // bytes, not encrypted, at most `max_entries` of them, declared sizes summing to at most
    // `max_total_bytes`, a symbolic link's target at most kMaxLinkTarget bytes. Fails with why; nothing
    // is unpacked.
    static Result<std::unique_ptr<ZipReader>> open(const std::string &path, const ZipLimits &limits);
    ~ZipReader();
    ZipReader(const ZipReader &) = delete;
    ZipReader &operator=(const ZipReader &) = delete;

    const std::vector<ZipEntryInfo> &entries() const { return entries_; }
    // Hands entry `index`'s content to `sink` in pieces of at most 64 KiB. Fails when the real bytes pass
    // the entry's declared size or, with every entry read so far, the total limit; when the archive is
    // damaged (its CRC included); or with the first failure `sink` returns (its reading then stops).
    Status read(size_t index, const std::function<Status(std::string_view piece)> &sink);
    // A symbolic link entry's target (its content), checked: not empty, no NUL byte.
    Result<std::string> read_link(size_t index);

  private:
    struct State;
    explicit ZipReader(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
    std::vector<ZipEntryInfo> entries_;
};

// Whether a symbolic link stored as entry `entry_name` with target `target` stays inside the tree the
// archive unpacks into, judged by its text alone: a relative target whose ".." components, resolved from
// the link's own directory, never climb above the tree's root. Absolute targets are outside. (Links
// through other links are checked on the disk by the unpackers, after creating them.)
bool link_stays_inside(std::string_view entry_name, std::string_view target);

}  // namespace actionhost::common::archive
