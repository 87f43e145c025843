// Reading a zip archive nobody vouches for (an upload to the host, a download from a sandbox's host to the
// client) with bounded memory: every entry is checked before anything is read — names, encryption, the
// number of entries, the sizes the headers declare — and then each entry's content is handed over piece
// by piece while the real bytes are counted, so a header that lies about sizes is caught as the bytes
// come. Poco's zip reader underneath (Poco::Zip), its ZIP64 record walk guarded (zip64_record_guard.hpp).
//
// The one zip reader of the tree: the host's /upload_file (host/files/zip_files.cpp) and the client's
// copies out of a sandbox (runtimes/client/src/file_copy.cpp).
//
// Threads: one ZipReader per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <actionhost/common/result.hpp>

namespace actionhost::common::archive {

struct ZipLimits {
    uint64_t max_total_bytes = 4ull << 30;  // the sum of what the entries unpack to (zip-bomb guard)
    uint64_t max_entries = 100000;
};

struct ZipEntryInfo {
    std::string name;            // as stored, '/'-separated; checked safe (relative, no "..", no NUL)
    bool directory = false;
    uint64_t declared_size = 0;  // what the header says it unpacks to
};

class ZipReader {
  public:
    // Opens `path` and checks every entry: a non-empty relative name without ".." components or NUL
    // bytes, not encrypted, at most `max_entries` of them, declared sizes summing to at most
    // `max_total_bytes`. Fails with why; nothing is unpacked.
    static Result<std::unique_ptr<ZipReader>> open(const std::string &path, const ZipLimits &limits);
    ~ZipReader();
    ZipReader(const ZipReader &) = delete;
    ZipReader &operator=(const ZipReader &) = delete;

    const std::vector<ZipEntryInfo> &entries() const { return entries_; }
    // Hands entry `index`'s content to `sink` in pieces of at most 64 KiB. Fails when the real bytes pass
    // the entry's declared size or, with every entry read so far, the total limit; when the archive is
    // damaged; or with the first failure `sink` returns (its reading then stops).
    Status read(size_t index, const std::function<Status(std::string_view piece)> &sink);

  private:
    struct State;
    explicit ZipReader(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
    std::vector<ZipEntryInfo> entries_;
};

}  // namespace actionhost::common::archive
