// The stream Poco's zip header walk reads an uploaded archive through. Poco reads a ZIP64 end-of-central-
// directory record by allocating, then filling and copying, the size the record declares
// (ZipArchiveInfo64::parse) — before knowing whether the file holds that many bytes. fuzz_zip found it:
// a 95-byte upload declaring 1.5 GB made the host touch 2.9 GB; 8 GB would get it killed.
// This buffer checks that size at the moment Poco reads it (the 4-byte signature "PK\6\6", then the
// 8-byte size, in two reads): a record reaching past the end of the file ends the stream there, Poco
// fails on a short read, and refused() says why. Reads are pread(2)s at the tracked position (no
// buffering, so every read Poco makes is seen as it makes it).
#pragma once

#include <cstdint>
#include <streambuf>
#include <string>

namespace actionhost::common::archive {

class Zip64RecordGuard : public std::streambuf {
  public:
    explicit Zip64RecordGuard(const std::string &path);
    ~Zip64RecordGuard() override;
    Zip64RecordGuard(const Zip64RecordGuard &) = delete;
    Zip64RecordGuard &operator=(const Zip64RecordGuard &) = delete;

    bool is_open() const { return fd_ >= 0; }
    // Why the archive was refused ("" while nothing was).
    const std::string &refused() const { return refused_; }

  protected:
    std::streamsize xsgetn(char *s, std::streamsize n) override;
    int_type underflow() override;
    int_type uflow() override;
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override;
    pos_type seekpos(pos_type pos, std::ios_base::openmode which) override;

  private:
    std::streamsize read_at(char *s, std::streamsize n);

    int fd_ = -1;
    uint64_t size_ = 0;
    uint64_t pos_ = 0;
    bool after_signature_ = false;  // the last read returned exactly "PK\6\6"
    std::string refused_;
};

}  // namespace actionhost::common::archive
