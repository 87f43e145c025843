#include "images/layer_writer.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::client::images {

using common::io::UniqueFd;

namespace {

constexpr uint64_t kIdRange = 65536;
constexpr int kMaxDepth = 512;

[[noreturn]] void io_error(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

struct WriterCloser {
    void operator()(archive *a) const { archive_write_free(a); }
};
struct EntryFreer {
    void operator()(archive_entry *e) const { archive_entry_free(e); }
};

// libarchive's output callback: every byte of the tar into the store's blob writer. No exception may
// cross libarchive's C frames: a failed write is an archive error with the writer's reason.
la_ssize_t to_blob(archive *a, void *data, const void *buffer, size_t length) {
    try {
        static_cast<BlobWriter *>(data)->write(std::string_view(static_cast<const char *>(buffer), length));
        return static_cast<la_ssize_t>(length);
    } catch (const std::exception &e) {
        archive_set_error(a, EIO, "%s", e.what());
        return -1;
    }
}

class LayerWalker {
  public:
    LayerWalker(archive *a, const LayerOwners &owners, uint64_t max_bytes) : a_(a), owners_(owners), budget_(max_bytes) {}

    void walk(int dir_fd, const std::string &prefix, int depth = 0) {
        // A sandbox may nest directories as deep as it likes; this walk recurses, so it stops first.
        if (depth > kMaxDepth) throw std::runtime_error("the sandbox's layer nests directories deeper than " + std::to_string(kMaxDepth) + " (at " + prefix + ")");
        UniqueFd dup(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
        DIR *dir = ::fdopendir(dup.release());
        if (dir == nullptr) io_error("cannot list " + (prefix.empty() ? std::string("the layer") : prefix));
        std::vector<std::string> names;
        for (dirent *e = ::readdir(dir); e != nullptr; e = ::readdir(dir))
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
        ::closedir(dir);
        std::sort(names.begin(), names.end());  // the same tree gives the same layer
        for (const auto &name : names) entry(dir_fd, prefix, name, depth);
    }

    uint64_t entries() const { return entries_; }

  private:
    uid_t inside_uid(uid_t uid) const {
        if (!owners_.mapped) return 0;
        return uid >= owners_.uid_base && uid - owners_.uid_base < kIdRange ? static_cast<uid_t>(uid - owners_.uid_base) : 65534;
    }
    gid_t inside_gid(gid_t gid) const {
        if (!owners_.mapped) return 0;
        return gid >= owners_.gid_base && gid - owners_.gid_base < kIdRange ? static_cast<gid_t>(gid - owners_.gid_base) : 65534;
    }

    std::unique_ptr<archive_entry, EntryFreer> header(const std::string &path, const struct stat &st) {
        std::unique_ptr<archive_entry, EntryFreer> e(archive_entry_new());
        archive_entry_set_pathname(e.get(), path.c_str());
        archive_entry_set_mode(e.get(), st.st_mode);
        archive_entry_set_uid(e.get(), inside_uid(st.st_uid));
        archive_entry_set_gid(e.get(), inside_gid(st.st_gid));
        archive_entry_set_mtime(e.get(), st.st_mtim.tv_sec, 0);
        ++entries_;
        return e;
    }

    void put(archive_entry *e, const std::string &path) {
        if (archive_write_header(a_, e) != ARCHIVE_OK) throw std::runtime_error("cannot write the entry " + path + ": " + archive_error_string(a_));
    }

    void user_attributes(archive_entry *e, int fd) {
        char names[4096];
        const ssize_t len = ::flistxattr(fd, names, sizeof names);
        for (ssize_t i = 0; i < len; i += static_cast<ssize_t>(std::strlen(names + i)) + 1) {
            const std::string n = names + i;
            if (n.rfind("user.", 0) != 0 || n.rfind("user.overlay.", 0) == 0) continue;
            char value[4096];
            const ssize_t size = ::fgetxattr(fd, n.c_str(), value, sizeof value);
            if (size >= 0) archive_entry_xattr_add_entry(e, n.c_str(), value, static_cast<size_t>(size));
        }
    }

    void whiteout(const std::string &path_of_parent, const std::string &name, const struct stat &st) {
        struct stat marker = st;
        marker.st_mode = S_IFREG | 0644;
        auto e = header(path_of_parent + ".wh." + name, marker);
        archive_entry_set_size(e.get(), 0);
        put(e.get(), path_of_parent + ".wh." + name);
    }

    void entry(int dir_fd, const std::string &prefix, const std::string &name, int depth) {
        const std::string path = prefix + name;
        struct stat st{};
        if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) io_error("cannot read " + path);
        if (S_ISCHR(st.st_mode) && st.st_rdev == ::makedev(0, 0)) return whiteout(prefix, name, st);
        if (S_ISDIR(st.st_mode)) {
            UniqueFd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!sub) io_error("cannot enter " + path);
            auto e = header(path + "/", st);
            user_attributes(e.get(), sub.get());
            put(e.get(), path);
            char opaque[4] = {};
            if (::fgetxattr(sub.get(), "user.overlay.opaque", opaque, sizeof opaque) > 0 && opaque[0] == 'y') {
                struct stat marker = st;
                marker.st_mode = S_IFREG | 0644;
                auto m = header(path + "/.wh..wh..opq", marker);
                archive_entry_set_size(m.get(), 0);
                put(m.get(), path + "/.wh..wh..opq");
            }
            walk(sub.get(), path + "/", depth + 1);
            return;
        }
        if (S_ISLNK(st.st_mode)) {
            std::vector<char> target(static_cast<size_t>(st.st_size) + 1);
            const ssize_t n = ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
            if (n < 0) io_error("cannot read the link " + path);
            auto e = header(path, st);
            archive_entry_set_symlink(e.get(), std::string(target.data(), static_cast<size_t>(n)).c_str());
            put(e.get(), path);
            return;
        }
        if (S_ISFIFO(st.st_mode)) {
            auto e = header(path, st);
            put(e.get(), path);
            return;
        }
        if (!S_ISREG(st.st_mode)) return;  // sockets and devices are not a layer's (none can be made inside)
        if (st.st_nlink > 1) {
            const auto key = std::make_pair(st.st_dev, st.st_ino);
            if (auto it = links_.find(key); it != links_.end()) {
                auto e = header(path, st);
                archive_entry_set_hardlink(e.get(), it->second.c_str());
                archive_entry_set_size(e.get(), 0);
                put(e.get(), path);
                return;
            }
            links_[key] = path;
        }
        UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        if (!fd) io_error("cannot read " + path);
        const std::vector<Extent> data = data_extents(fd.get(), st.st_size);
        uint64_t data_bytes = 0;
        for (const auto &x : data) data_bytes += static_cast<uint64_t>(x.length);
        if (data_bytes > budget_) throw std::runtime_error("the sandbox's layer holds more than sandbox.image_max_size_mb allows (at " + path + ")");
        budget_ -= data_bytes;
        auto e = header(path, st);
        archive_entry_set_size(e.get(), st.st_size);
        // A file with holes goes as a sparse entry (pax, GNU sparse 1.0): only its data is stored, and it
        // unpacks with its holes.
        if (data_bytes < static_cast<uint64_t>(st.st_size))
            for (const auto &x : data) archive_entry_sparse_add_entry(e.get(), x.offset, x.length);
        user_attributes(e.get(), fd.get());
        put(e.get(), path);
        // libarchive takes the whole file and skips what its sparse map calls holes: holes are fed as
        // zeros it never copies, data is read.
        int64_t at = 0;
        auto feed = [&](const char *bytes, size_t n) {
            if (archive_write_data(a_, bytes, n) != static_cast<la_ssize_t>(n))
                throw std::runtime_error("cannot write " + path + " into the layer: " + archive_error_string(a_));
            at += static_cast<int64_t>(n);
        };
        for (const auto &x : data) {
            while (at < x.offset) feed(kZeros.data(), static_cast<size_t>(std::min<int64_t>(x.offset - at, kZeros.size())));
            while (at < x.offset + x.length) {
                const ssize_t n = ::pread(fd.get(), buffer_.data(), static_cast<size_t>(std::min<int64_t>(x.offset + x.length - at, buffer_.size())), at);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) throw std::runtime_error("the file " + path + " changed while it was written into the layer");
                feed(buffer_.data(), static_cast<size_t>(n));
            }
        }
        while (at < st.st_size) feed(kZeros.data(), static_cast<size_t>(std::min<int64_t>(st.st_size - at, kZeros.size())));
    }

    struct Extent {
        int64_t offset, length;
    };
    // The file's data as SEEK_DATA/SEEK_HOLE see it: what is not listed reads as zeros. The last extent
    // always ends at the file's end (a 1-byte one when the file ends in a hole), as a sparse map wants.
    static std::vector<Extent> data_extents(int fd, int64_t size) {
        std::vector<Extent> out;
        for (off_t at = 0; at < size;) {
            const off_t data = ::lseek(fd, at, SEEK_DATA);
            if (data < 0) break;  // ENXIO: a hole to the end (or a file system without holes: see below)
            off_t hole = ::lseek(fd, data, SEEK_HOLE);
            if (hole < 0 || hole > size) hole = size;
            out.push_back({data, hole - data});
            at = hole;
        }
        if (size > 0 && (out.empty() || out.back().offset + out.back().length < size)) {
            if (errno != ENXIO && out.empty()) return {{0, size}};  // no hole information: all of it is data
            out.push_back({size - 1, 1});
        }
        return out;
    }

    static inline const std::vector<char> kZeros = std::vector<char>(size_t{1} << 20);

    archive *a_;
    const LayerOwners &owners_;
    std::map<std::pair<dev_t, ino_t>, std::string> links_;
    uint64_t entries_ = 0;
    uint64_t budget_;
    std::vector<char> buffer_ = std::vector<char>(size_t{1} << 16);  // not on the stack: walk() recurses
};

}  // namespace

WrittenLayer write_layer(const std::string &upper, const LayerOwners &owners, const BlobStore &store, uint64_t max_bytes) {
    UniqueFd root(::open(upper.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!root) io_error("cannot open the layer " + upper);
    BlobWriter blob = store.content_writer();
    std::unique_ptr<archive, WriterCloser> a(archive_write_new());
    archive_write_set_format_pax_restricted(a.get());
    archive_write_add_filter_none(a.get());
    archive_write_set_bytes_in_last_block(a.get(), 1);
    if (archive_write_open(a.get(), &blob, nullptr, to_blob, nullptr) != ARCHIVE_OK)
        throw std::runtime_error(std::string("cannot start the layer: ") + archive_error_string(a.get()));
    LayerWalker walker(a.get(), owners, max_bytes);
    walker.walk(root.get(), "");
    if (archive_write_close(a.get()) != ARCHIVE_OK) throw std::runtime_error(std::string("cannot end the layer: ") + archive_error_string(a.get()));
    WrittenLayer out;
    out.size = blob.written();
    out.entries = walker.entries();
    out.digest = blob.commit();
    return out;
}

}  // namespace actionhost::client::images
