#include "plugins/plugin_layer.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::client::plugins {

namespace fs = std::filesystem;
using common::io::UniqueFd;

namespace {

constexpr size_t kMaxManifestBytes = 1 << 20;
constexpr size_t kHeadBytes = 64;
constexpr uint64_t kMaxEntries = 100000;

struct WriterCloser {
    void operator()(archive *a) const { archive_write_free(a); }
};
struct ReaderCloser {
    void operator()(archive *a) const { archive_read_free(a); }
};
struct EntryFreer {
    void operator()(archive_entry *e) const { archive_entry_free(e); }
};

// libarchive's output callback: the compressed bytes into the store's blob writer. No exception may
// cross libarchive's C frames: a failed write is an archive error with the writer's reason.
la_ssize_t to_blob(archive *a, void *data, const void *buffer, size_t length) {
    try {
        static_cast<images::BlobWriter *>(data)->write(std::string_view(static_cast<const char *>(buffer), length));
        return static_cast<la_ssize_t>(length);
    } catch (const std::exception &e) {
        archive_set_error(a, EIO, "%s", e.what());
        return -1;
    }
}

// The folder's entries, relative and sorted, manifest.json first; refuses what a plugin folder must not hold.
std::vector<std::string> plugin_entries(const std::string &dir) {
    std::vector<std::string> out;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) throw std::runtime_error("cannot read the plugin folder " + dir + ": " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) throw std::runtime_error("cannot read the plugin folder " + dir + ": " + ec.message());
        const auto status = it->symlink_status();
        const std::string rel = fs::relative(it->path(), dir).generic_string();
        if (!fs::is_regular_file(status) && !fs::is_directory(status))
            throw std::runtime_error("the plugin folder holds " + rel + ", which is neither a file nor a directory (a link is not packed: copy what it points to)");
        if (out.size() >= kMaxEntries) throw std::runtime_error("the plugin folder holds more than " + std::to_string(kMaxEntries) + " entries");
        out.push_back(rel);
    }
    std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
        if ((a == "manifest.json") != (b == "manifest.json")) return a == "manifest.json";
        return a < b;
    });
    return out;
}

// A layer entry's path: relative, without "." or ".." parts, no empty part; "" when it is none of those.
std::string safe_path(const char *raw) {
    if (raw == nullptr) return "";
    std::string p = raw;
    if (p.rfind("./", 0) == 0) p = p.substr(2);
    while (!p.empty() && p.back() == '/') p.pop_back();
    if (p.empty() || p[0] == '/' || p.size() > 4096) return "";
    size_t at = 0;
    for (;;) {
        const size_t slash = p.find('/', at);
        const std::string part = p.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
        if (part.empty() || part == "." || part == "..") return "";
        if (slash == std::string::npos) return p;
        at = slash + 1;
    }
}

using ReadArchive = std::unique_ptr<archive, ReaderCloser>;

ReadArchive open_layer(const std::string &path) {
    ReadArchive a(archive_read_new());
    archive_read_support_filter_gzip(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
        throw std::runtime_error("the plugin layer cannot be read: " + std::string(archive_error_string(a.get())));
    return a;
}

// Each entry of the layer in turn, checked: `on_entry(path, is_dir, entry)` reads its data if it wants.
template <class OnEntry>
void each_entry(archive *a, uint64_t max_bytes, OnEntry on_entry) {
    archive_entry *entry = nullptr;
    uint64_t total = 0, count = 0;
    for (;;) {
        const int r = archive_read_next_header(a, &entry);
        if (r == ARCHIVE_EOF) return;
        if (r != ARCHIVE_OK) throw std::runtime_error("the plugin layer is not a readable tar.gz: " + std::string(archive_error_string(a)));
        if (++count > kMaxEntries) throw std::runtime_error("the plugin layer holds more than " + std::to_string(kMaxEntries) + " entries");
        const char *raw = archive_entry_pathname(entry);
        const std::string path = safe_path(raw);
        if (path.empty()) throw std::runtime_error("the plugin layer holds the path \"" + std::string(raw ? raw : "") + "\", which is not a plain relative path: refused");
        const mode_t type = archive_entry_filetype(entry);
        if (type != AE_IFREG && type != AE_IFDIR) throw std::runtime_error("the plugin layer holds " + path + ", which is neither a file nor a directory: refused");
        if (archive_entry_hardlink(entry) != nullptr) throw std::runtime_error("the plugin layer holds the hard link " + path + ": refused");
        total += static_cast<uint64_t>(std::max<la_int64_t>(0, archive_entry_size(entry)));
        if (total > max_bytes) throw std::runtime_error("the plugin layer unpacks to more than " + std::to_string(max_bytes) + " bytes: refused");
        on_entry(path, type == AE_IFDIR, entry);
    }
}

}  // namespace

images::Descriptor write_plugin_layer(const std::string &dir, const images::BlobStore &store, uint64_t max_bytes) {
    const std::vector<std::string> entries = plugin_entries(dir);
    images::BlobWriter blob = store.content_writer(static_cast<int64_t>(max_bytes));
    std::unique_ptr<archive, WriterCloser> a(archive_write_new());
    archive_write_set_format_pax_restricted(a.get());
    archive_write_add_filter_gzip(a.get());
    // No time in the gzip header either: the same folder packs to the same bytes.
    archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr);
    archive_write_set_bytes_in_last_block(a.get(), 1);
    if (archive_write_open(a.get(), &blob, nullptr, to_blob, nullptr) != ARCHIVE_OK)
        throw std::runtime_error("cannot start the plugin layer: " + std::string(archive_error_string(a.get())));
    uint64_t total = 0;
    std::vector<char> buffer(1 << 16);
    for (const auto &rel : entries) {
        const std::string full = dir + "/" + rel;
        struct stat st {};
        if (::lstat(full.c_str(), &st) != 0) throw std::runtime_error("cannot read " + full + ": " + std::strerror(errno));
        std::unique_ptr<archive_entry, EntryFreer> e(archive_entry_new());
        archive_entry_set_pathname(e.get(), rel.c_str());
        archive_entry_set_uid(e.get(), 0);
        archive_entry_set_gid(e.get(), 0);
        archive_entry_set_mtime(e.get(), 0, 0);
        const bool is_dir = S_ISDIR(st.st_mode);
        archive_entry_set_filetype(e.get(), is_dir ? AE_IFDIR : AE_IFREG);
        archive_entry_set_perm(e.get(), is_dir || (st.st_mode & S_IXUSR) ? 0755 : 0644);
        archive_entry_set_size(e.get(), is_dir ? 0 : st.st_size);
        total += static_cast<uint64_t>(st.st_size);
        if (total > max_bytes) throw std::runtime_error("the plugin folder holds more than " + std::to_string(max_bytes) + " bytes");
        if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK)
            throw std::runtime_error("cannot pack " + rel + ": " + std::string(archive_error_string(a.get())));
        if (is_dir) continue;
        UniqueFd fd(::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd) throw std::runtime_error("cannot read " + full + ": " + std::strerror(errno));
        int64_t left = st.st_size;
        while (left > 0) {
            const ssize_t n = ::read(fd.get(), buffer.data(), std::min<size_t>(buffer.size(), static_cast<size_t>(left)));
            if (n <= 0) throw std::runtime_error("cannot read " + full + ": " + (n == 0 ? "it shrank while packed" : std::strerror(errno)));
            if (archive_write_data(a.get(), buffer.data(), static_cast<size_t>(n)) != n)
                throw std::runtime_error("cannot pack " + rel + ": " + std::string(archive_error_string(a.get())));
            left -= n;
        }
    }
    if (archive_write_close(a.get()) != ARCHIVE_OK) throw std::runtime_error("cannot finish the plugin layer: " + std::string(archive_error_string(a.get())));
    a.reset();
    images::Descriptor d;
    d.size = blob.written();
    d.digest = blob.commit();
    return d;
}

LayerScan scan_plugin_layer(const std::string &path, uint64_t max_bytes) {
    LayerScan scan;
    ReadArchive a = open_layer(path);
    each_entry(a.get(), max_bytes, [&](const std::string &p, bool is_dir, archive_entry *entry) {
        if (is_dir) return;
        ++scan.files;
        scan.bytes += static_cast<uint64_t>(std::max<la_int64_t>(0, archive_entry_size(entry)));
        if (p == "manifest.json" && archive_entry_size(entry) > static_cast<la_int64_t>(kMaxManifestBytes))
            throw std::runtime_error("the plugin layer's manifest.json is larger than 1 MiB: refused");
        const size_t want = p == "manifest.json" ? kMaxManifestBytes : kHeadBytes;
        std::string data(want, '\0');
        size_t got = 0;
        while (got < want) {
            const la_ssize_t n = archive_read_data(a.get(), data.data() + got, want - got);
            if (n < 0) throw std::runtime_error("the plugin layer cannot be read at " + p + ": " + archive_error_string(a.get()));
            if (n == 0) break;
            got += static_cast<size_t>(n);
        }
        data.resize(got);
        if (p == "manifest.json") scan.manifest_json = data;
        else scan.heads[p] = data;
    });
    return scan;
}

void extract_plugin_layer(const std::string &path, const std::string &dest, uint64_t max_bytes) {
    ReadArchive a = open_layer(path);
    std::vector<char> buffer(1 << 16);
    each_entry(a.get(), max_bytes, [&](const std::string &p, bool is_dir, archive_entry *entry) {
        const std::string target = dest + "/" + p;
        std::error_code ec;
        // Parents as plain directories, never through a link: the staging directory is ours and fresh,
        // and nothing the layer writes is a link.
        fs::create_directories(fs::path(target).parent_path(), ec);
        if (ec) throw std::runtime_error("cannot create " + fs::path(target).parent_path().string() + ": " + ec.message());
        if (is_dir) {
            if (::mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) throw std::runtime_error("cannot create " + target + ": " + std::strerror(errno));
            return;
        }
        const mode_t mode = (archive_entry_perm(entry) & 0111) ? 0755 : 0644;
        UniqueFd fd(::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
        if (!fd) throw std::runtime_error("cannot create " + target + ": " + std::strerror(errno) + " (a path twice in the layer?)");
        for (;;) {
            const la_ssize_t n = archive_read_data(a.get(), buffer.data(), buffer.size());
            if (n < 0) throw std::runtime_error("the plugin layer cannot be read at " + p + ": " + archive_error_string(a.get()));
            if (n == 0) break;
            for (la_ssize_t off = 0; off < n;) {
                const ssize_t w = ::write(fd.get(), buffer.data() + off, static_cast<size_t>(n - off));
                if (w < 0) throw std::runtime_error("cannot write " + target + ": " + std::strerror(errno));
                off += w;
            }
        }
        if (::fsync(fd.get()) != 0) throw std::runtime_error("cannot write " + target + ": " + std::strerror(errno));
    });
}

}  // namespace actionhost::client::plugins
