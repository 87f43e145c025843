#include "actionhost/client/file_copy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <actionhost/common/archive/zip_reader.hpp>
#include <actionhost/common/io/unique_fd.hpp>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "actionhost/client/shell_quote.hpp"
#include "local_tree.hpp"
#include "temp_file.hpp"

namespace actionhost::client {

namespace fs = std::filesystem;
using common::archive::ZipEntryKind;
using common::archive::ZipReader;

namespace {

// What an archive may weigh beside what it unpacks to (headers, stored entries' framing).
constexpr uint64_t kArchiveOverhead = 64ull << 20;


std::unique_ptr<ZipReader> open_zip(const std::string &path, uint64_t max_bytes, const std::string &what) {
    auto opened = ZipReader::open(path, {max_bytes, 1000000});
    if (!opened) throw WireError("Refusing " + what + ": " + opened.error().message + "; nothing was written");
    return std::move(opened).value();
}

bool holds_files(const ZipReader &zip) {
    for (const auto &e : zip.entries())
        if (!e.directory) return true;
    return false;
}

// The zip of `sandbox_path` in `into`, and whether the path was a file.
bool fetch_zip(WireClient &wire, const std::string &sandbox_path, const detail::TempFile &into, const CopyOptions &options) {
    const uint64_t archive_limit = options.max_bytes + kArchiveOverhead;
    wire.download_to(sandbox_path, into.fd(), archive_limit);
    if (holds_files(*open_zip(into.path(), options.max_bytes, "the archive of " + sandbox_path))) return false;
    // An empty zip: an empty directory, or a file or link (which /download_files never packs). Copy it
    // into a private directory (its mode and time kept, a link as a link), download that, remove it.
    ShellResult r = run_hidden(wire, "f=" + bash_quote(sandbox_path) +
                                         "; if [ -f \"$f\" ] || [ -L \"$f\" ]; then d=$(mktemp -d) && cp -pP -- \"$f\" \"$d/\" && printf '%s' \"$d\"; fi");
    std::string dir = r.output;
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    if (r.exit_code != 0) throw WireError("Cannot read " + sandbox_path + " in the sandbox: " + r.output);
    if (dir.empty()) return false;  // an empty directory
    if (dir[0] != '/') throw WireError("Cannot read " + sandbox_path + " in the sandbox: " + r.output);
    try {
        wire.download_to(dir, into.fd(), archive_limit);
    } catch (...) {
        run_hidden(wire, "rm -rf -- " + bash_quote(dir));
        throw;
    }
    run_hidden(wire, "rm -rf -- " + bash_quote(dir));
    return true;
}

// The mode and time of the sandbox's directory `dir`, from a detailed listing of its parent
// (/list_files's "detail", actionhost's additive key); nothing from a host that lists names only.
std::optional<std::pair<uint32_t, int64_t>> directory_attributes(WireClient &wire, const fs::path &dir) {
    nlohmann::json listing;
    try {
        listing = wire.list_files(dir.parent_path().string(), true);
    } catch (const WireError &) {
        return std::nullopt;  // the copy itself is done; its top directory keeps the mode it was made with
    }
    if (!listing.is_array()) return std::nullopt;
    const std::string name = dir.filename().string();
    for (const auto &entry : listing) {
        if (!entry.is_object() || entry.value("name", "") != name || entry.value("type", "") != "dir") continue;
        const auto mode = entry.find("mode"), mtime = entry.find("mtime");
        if (mode == entry.end() || mtime == entry.end() || !mode->is_number_unsigned() || !mtime->is_number_integer()) return std::nullopt;
        return std::make_pair(mode->get<uint32_t>() & 0777u, mtime->get<int64_t>());
    }
    return std::nullopt;
}

std::string read_whole(int fd) {
    std::string out;
    if (::lseek(fd, 0, SEEK_SET) != 0) throw WireError(std::string("Cannot read the download: ") + std::strerror(errno));
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw WireError(std::string("Cannot read the download: ") + std::strerror(errno));
        out.append(buf, static_cast<size_t>(n));
    }
    return out;
}

}  // namespace

void copy_to(WireClient &wire, const std::string &local_src, const std::string &sandbox_dest, bool recursive,
             const CopyOptions &options) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(local_src, ec))) throw WireError("No such file or directory: " + local_src);
    wire.upload(local_src, sandbox_dest, recursive || fs::is_directory(local_src, ec), options.skipped);
}

std::vector<ZipEntry> read_zip(const std::string &zip_bytes, uint64_t max_bytes) {
    detail::TempFile file("zip");
    for (size_t done = 0; done < zip_bytes.size();) {
        const ssize_t n = ::write(file.fd(), zip_bytes.data() + done, zip_bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(std::string("cannot store the archive: ") + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
    auto opened = ZipReader::open(file.path(), {max_bytes, 100000});
    if (!opened) throw std::runtime_error(opened.error().message);
    ZipReader &zip = *opened.value();
    std::vector<ZipEntry> out;
    for (size_t i = 0; i < zip.entries().size(); ++i) {
        if (zip.entries()[i].kind != ZipEntryKind::file) continue;
        ZipEntry entry{zip.entries()[i].name, {}};
        auto read = zip.read(i, [&](std::string_view piece) {
            entry.content.append(piece);
            return common::ok();
        });
        if (!read) throw std::runtime_error(read.error().message);
        out.push_back(std::move(entry));
    }
    return out;
}

std::string copy_from(WireClient &wire, const std::string &sandbox_path, const CopyOptions &options) {
    detail::TempFile zip("copy");
    fetch_zip(wire, sandbox_path, zip, options);
    return read_whole(zip.fd());
}

std::vector<std::string> copy_from_into(WireClient &wire, const std::string &sandbox_path, const std::string &local_dir,
                                        const CopyOptions &options) {
    detail::TempFile zip_file("copy");
    const bool is_file = fetch_zip(wire, sandbox_path, zip_file, options);
    fs::path src(sandbox_path);
    while (src.has_relative_path() && src.filename().empty()) src = src.parent_path();  // "/a/b/" → "/a/b"
    const std::string top = src.filename().string();
    const fs::path root = fs::absolute(local_dir).lexically_normal();
    // Names, count and declared sizes are checked by the reader before anything is read.
    auto zip = open_zip(zip_file.path(), options.max_bytes, "the archive of " + sandbox_path);
    // A directory's entries are relative to it; put them under its name. A file's entry is its name.
    const fs::path base = (is_file || top.empty()) ? root : root / top;
    std::vector<std::string> relative;  // each entry's path below root, all checked before any is written
    for (const auto &e : zip->entries()) {
        const fs::path target = (base / fs::path(e.name)).lexically_normal();
        const fs::path rel = target.lexically_relative(root);
        if (rel.empty() || *rel.begin() == "..") throw WireError("Refusing a zip entry outside " + root.string() + ": " + e.name + "; nothing was written");
        relative.push_back(rel.string());
    }
    std::vector<std::string> written;   // shown to the caller
    std::vector<size_t> written_index;  // which entries those were, to remove them again on a failure
    auto note = [&](const std::string &why) {
        if (options.skipped) options.skipped->push_back(why);
    };
    for (size_t i = 0; i < zip->entries().size(); ++i) {
        const auto &entry = zip->entries()[i];
        const std::string shown = (root / relative[i]).string();
        if (entry.directory) {
            detail::make_local_dir(root.string(), relative[i]);
            continue;
        }
        if (entry.kind == ZipEntryKind::other) {
            note(shown + ": a device, FIFO or socket in the archive, not created");
            continue;
        }
        if (entry.kind == ZipEntryKind::symlink) continue;  // after every file: none is written through one
        // Never through a link: the local tree is often the workspace, where the agent may plant one.
        std::string skipped;
        common::io::UniqueFd out = detail::open_local_file_for_writing(root.string(), relative[i], skipped);
        if (!out) {
            note(skipped);
            continue;
        }
        uint64_t size = 0;
        auto unpacked = zip->read(i, [&](std::string_view piece) {
            detail::write_piece(out.get(), piece, shown);
            size += piece.size();
            return common::ok();
        });
        if (!unpacked) {
            // A header that lied about its sizes, or a damaged archive: this copy's files go again.
            out.reset();
            detail::remove_local_file(root.string(), relative[i]);
            for (size_t w : written_index) detail::remove_local_file(root.string(), relative[w]);
            throw WireError("Refusing the archive of " + sandbox_path + ": " + unpacked.error().message +
                            "; what this copy had written was removed");
        }
        detail::finish_file(out.get(), size, shown);
        // The sandbox's permission bits (masked to 0777 by the reader) and modification time.
        if (entry.mode && ::fchmod(out.get(), *entry.mode) != 0)
            throw WireError("Cannot set the mode of " + shown + ": " + std::strerror(errno));
        if (entry.mtime) {
            const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(*entry.mtime), 0}};
            ::futimens(out.get(), times);
        }
        written.push_back(shown);
        written_index.push_back(i);
    }
    std::vector<size_t> links;  // the links made, checked again once all are there
    // Links last, each only when it stays inside the destination (by its text, then as resolved there);
    // one that leads out — the agent's link to /etc/shadow — is skipped with a note, never followed.
    for (size_t i = 0; i < zip->entries().size(); ++i) {
        const auto &entry = zip->entries()[i];
        if (entry.kind != ZipEntryKind::symlink) continue;
        const std::string shown = (root / relative[i]).string();
        auto target = zip->read_link(i);
        if (!target) {
            note(shown + ": " + target.error().message + ", not created");
            continue;
        }
        if (!common::archive::link_stays_inside(relative[i], target.value())) {
            note(shown + ": a symbolic link to '" + target.value() + "', which leads out of " + root.string() + ", not created");
            continue;
        }
        std::string skipped;
        if (!detail::make_local_link(root.string(), relative[i], target.value(), entry.mtime, skipped)) {
            note(skipped);
            continue;
        }
        written.push_back(shown);
        links.push_back(i);
    }
    // Each link again, now that all are there: one made earlier may lead out through one made after it.
    for (size_t i : links) {
        std::string skipped;
        if (detail::keep_local_link_if_inside(root.string(), relative[i], skipped)) continue;
        note(skipped);
        const std::string shown = (root / relative[i]).string();
        written.erase(std::remove(written.begin(), written.end(), shown), written.end());
    }
    if (!is_file) detail::make_local_dir(root.string(), base.lexically_relative(root).string());
    // Last, each directory's mode and time (nothing is created in it any more), deepest first; the
    // copied directory's own from a detailed listing of its parent (a host without one: left as made).
    std::vector<size_t> directories;
    for (size_t i = 0; i < zip->entries().size(); ++i)
        if (zip->entries()[i].directory && (zip->entries()[i].mode || zip->entries()[i].mtime)) directories.push_back(i);
    auto depth = [&](size_t i) { const fs::path p(relative[i]); return std::distance(p.begin(), p.end()); };
    std::stable_sort(directories.begin(), directories.end(), [&](size_t a, size_t b) { return depth(a) > depth(b); });
    for (size_t i : directories)
        detail::set_local_dir_attributes(root.string(), relative[i], zip->entries()[i].mode, zip->entries()[i].mtime);
    if (!is_file && !top.empty()) {
        if (const auto own = directory_attributes(wire, src))
            detail::set_local_dir_attributes(root.string(), base.lexically_relative(root).string(), own->first, own->second);
    }
    return written;
}

}  // namespace actionhost::client
