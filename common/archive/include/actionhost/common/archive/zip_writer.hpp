// Writing a zip archive with the Unix attributes Info-ZIP (and so `unzip`, Python's zipfile, OpenHands)
// understands: version_made_by's high byte 3 (Unix), external_fa = mode << 16 (the type bits included:
// S_IFREG, S_IFDIR, S_IFLNK with the link's target as the entry's content), the modification time as
// the DOS time (local time) and the 0x5455 extended timestamp extra field (UTC seconds). Debian's
// minizip (zlib's contrib, zip.h) underneath. Entries larger than 4 GiB get ZIP64 records.
//
// The one zip writer of the tree: the host's /download_files (host/files/zip_files.cpp) and the
// client's uploads (runtimes/client/src/wire_client.cpp). zip_reader.hpp reads what it writes.
//
// Threads: one ZipWriter per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <actionhost/common/result.hpp>

namespace actionhost::common::archive {

struct ZipEntryAttributes {
    uint32_t mode = 0644;  // permission bits (& 07777); the type bits are the writer's
    int64_t mtime = 0;     // seconds since the epoch
};

class ZipWriter {
  public:
    // Creates (or truncates) `path`.
    static Result<std::unique_ptr<ZipWriter>> create(const std::string &path);
    ~ZipWriter();  // an archive not closed is left incomplete
    ZipWriter(const ZipWriter &) = delete;
    ZipWriter &operator=(const ZipWriter &) = delete;

    // `name` relative, '/'-separated; a directory's gets a trailing '/' when it has none.
    Status add_directory(const std::string &name, const ZipEntryAttributes &attributes);
    // The content read from `fd` (its position on) to its end, deflated.
    Status add_file(const std::string &name, int fd, const ZipEntryAttributes &attributes);
    Status add_bytes(const std::string &name, std::string_view content, const ZipEntryAttributes &attributes);
    // A symbolic link: `target` is stored as the entry's content, never followed.
    Status add_symlink(const std::string &name, const std::string &target, const ZipEntryAttributes &attributes);
    // Writes the central directory. Fails with why.
    Status close();

  private:
    struct State;
    explicit ZipWriter(std::unique_ptr<State> state);
    Status add(const std::string &name, uint32_t type_and_mode, const ZipEntryAttributes &attributes, int fd,
               std::string_view content, uint64_t size_hint);
    std::unique_ptr<State> state_;
};

}  // namespace actionhost::common::archive
