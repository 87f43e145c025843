#include "images/blob_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "images/oci.hpp"

namespace actionhost::client::images {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void io_error(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

std::string hex_of(const std::string &digest) {
    if (!valid_digest(digest)) throw std::runtime_error("not a sha256 digest: '" + digest + "'");
    return digest.substr(7);
}

}  // namespace

BlobStore::BlobStore(std::string root) : root_(std::move(root)) {
    std::error_code ec;
    fs::create_directories(root_ + "/blobs/sha256", ec);
    fs::create_directories(root_ + "/blobs/tmp", ec);
    if (ec) throw std::runtime_error("cannot create " + root_ + "/blobs: " + ec.message());
}

bool BlobStore::has(const std::string &digest) const {
    struct stat st{};
    return valid_digest(digest) && ::stat(path(digest).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string BlobStore::path(const std::string &digest) const { return root_ + "/blobs/sha256/" + hex_of(digest); }

BlobWriter BlobStore::writer(const std::string &digest, int64_t size, int64_t max_size) const {
    return BlobWriter(path(digest), digest, size, max_size, root_ + "/blobs/tmp");
}

BlobWriter BlobStore::content_writer(int64_t max_size) const {
    BlobWriter w("", "", -1, max_size, root_ + "/blobs/tmp");
    w.blobs_dir_ = root_ + "/blobs/sha256";
    return w;
}

std::string BlobStore::put(std::string_view bytes) const {
    common::Digest sha = common::Digest::sha256();
    sha.update(bytes);
    const std::string digest = "sha256:" + sha.hex();
    if (has(digest)) return digest;
    BlobWriter w = writer(digest, static_cast<int64_t>(bytes.size()));
    w.write(bytes);
    w.commit();
    return digest;
}

std::string BlobStore::read(const std::string &digest, int64_t max_size) const {
    common::io::UniqueFd fd(::open(path(digest).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) io_error("cannot read the blob " + digest);
    struct stat st{};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) io_error("cannot read the blob " + digest);
    if (st.st_size > max_size) throw std::runtime_error("the document " + digest + " is larger than " + std::to_string(max_size) + " bytes");
    std::string out(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::read(fd.get(), out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) io_error("cannot read the blob " + digest);
        done += static_cast<size_t>(n);
    }
    return out;
}

BlobWriter::BlobWriter(std::string final_path, std::string digest, int64_t size, int64_t max_size, const std::string &tmp_dir)
    : final_path_(std::move(final_path)), digest_(std::move(digest)), size_(size), max_size_(max_size) {
    temp_path_ = tmp_dir + "/" + (digest_.empty() ? std::string("content") : digest_.substr(7, 16)) + "-XXXXXX";
    fd_.reset(::mkstemp(temp_path_.data()));
    if (!fd_) io_error("cannot create a file in " + tmp_dir);
}

BlobWriter::~BlobWriter() {
    if (!committed_ && !temp_path_.empty() && fd_) ::unlink(temp_path_.c_str());
}

void BlobWriter::write(std::string_view piece) {
    written_ += static_cast<int64_t>(piece.size());
    if ((size_ >= 0 && written_ > size_) || written_ > max_size_)
        throw std::runtime_error("the blob " + digest_ + " is longer than the " + std::to_string(size_ >= 0 ? size_ : max_size_) +
                                 " bytes its descriptor says");
    sha_.update(piece);
    for (size_t done = 0; done < piece.size();) {
        const ssize_t n = ::write(fd_.get(), piece.data() + done, piece.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) io_error("cannot write the blob " + digest_);
        done += static_cast<size_t>(n);
    }
}

std::string BlobWriter::commit() {
    if (size_ >= 0 && written_ != size_)
        throw std::runtime_error("the blob " + digest_ + " has " + std::to_string(written_) + " bytes, its descriptor says " +
                                 std::to_string(size_));
    const std::string got = "sha256:" + sha_.hex();
    if (digest_.empty()) {  // named by its content
        digest_ = got;
        final_path_ = blobs_dir_ + "/" + got.substr(7);
    }
    if (got != digest_) throw std::runtime_error("the blob named " + digest_ + " has the digest " + got + ": refused");
    if (::fsync(fd_.get()) != 0) io_error("cannot write the blob " + digest_);
    if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) io_error("cannot store the blob " + digest_);
    committed_ = true;
    return digest_;
}

}  // namespace actionhost::client::images
