// The content-addressed part of the image store: blobs (manifests, configs, compressed layers) under
// <root>/blobs/sha256/<hex>, each written to a temporary file first and renamed into place only once
// its size and SHA-256 are what its descriptor says. A blob in place is therefore always the one its
// name says; a transfer cut short, a registry that sends more bytes than declared or other bytes than
// named leaves nothing behind.
//
// Threads: a BlobStore may be shared; a BlobWriter is one writer's. Several processes may write the same
// blob at once: each writes its own temporary file, and the last rename wins with identical content.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <actionhost/common/digest.hpp>
#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::client::images {

class BlobWriter;

class BlobStore {
  public:
    // `root` is the store's directory (it must exist).
    explicit BlobStore(std::string root);
    bool has(const std::string &digest) const;
    std::string path(const std::string &digest) const;
    // A writer for the blob `digest` of `size` bytes (size < 0: unknown, any size accepted up to
    // `max_size`).
    BlobWriter writer(const std::string &digest, int64_t size, int64_t max_size = int64_t{1} << 40) const;
    // A writer for a blob named by its content (a layer of a `docker save` archive): commit() names it.
    BlobWriter content_writer(int64_t max_size = int64_t{1} << 40) const;
    // Stores `bytes` (a document) as its own digest; returns "sha256:<hex>".
    std::string put(std::string_view bytes) const;
    // The blob's content (documents only: at most `max_size` bytes, else std::runtime_error).
    std::string read(const std::string &digest, int64_t max_size = 4 << 20) const;

  private:
    std::string root_;
};

class BlobWriter {
  public:
    BlobWriter(BlobWriter &&) = default;
    ~BlobWriter();  // removes the temporary file unless committed
    // Appends; std::runtime_error when the bytes pass the declared size.
    void write(std::string_view piece);
    // Checks size and digest and puts the blob in place; std::runtime_error naming what differs.
    // Returns the blob's digest (a content writer's is computed here).
    std::string commit();
    int64_t written() const { return written_; }

  private:
    friend class BlobStore;
    BlobWriter(std::string final_path, std::string digest, int64_t size, int64_t max_size, const std::string &tmp_dir);
    std::string final_path_, temp_path_, digest_;  // both "" for a content writer until commit
    std::string blobs_dir_;
    int64_t size_, max_size_, written_ = 0;
    common::io::UniqueFd fd_;
    common::Digest sha_ = common::Digest::sha256();
    bool committed_ = false;
};

}  // namespace actionhost::client::images
