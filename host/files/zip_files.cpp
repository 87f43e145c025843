#include "files/zip_files.hpp"

#include <actionhost/common/archive/zip_reader.hpp>

#include <Poco/DateTime.h>
#include <Poco/Path.h>
#include <Poco/Timestamp.h>
#include <Poco/Zip/Compress.h>
#include <Poco/Zip/ZipArchive.h>
#include <Poco/Zip/ZipManipulator.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>
#include <actionhost/common/random.hpp>

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

std::string staging_name() { return ".ahupload." + common::random_hex(8); }

// Moves everything below `from` into `to`, merging directories and replacing files.
void merge_into(const fs::path &from, const fs::path &to) {
    for (const auto &e : fs::directory_iterator(from)) {
        const fs::path target = to / e.path().filename();
        if (e.is_directory() && !e.is_symlink()) {
            std::error_code ec;
            if (fs::is_directory(target, ec) && !fs::is_symlink(target, ec)) {
                merge_into(e.path(), target);
                continue;
            }
            if (fs::exists(fs::symlink_status(target, ec))) fs::remove_all(target);
        } else {
            std::error_code ec;
            if (fs::is_directory(fs::symlink_status(target, ec))) fs::remove_all(target);
        }
        fs::rename(e.path(), target);
    }
}

}  // namespace

common::Status unzip_safely(const std::string &zip_path, const std::string &dest, const UnzipLimits &limits,
                            const std::optional<FileOwner> &owner) {
    auto opened = common::archive::ZipReader::open(zip_path, {limits.max_total_bytes, limits.max_entries});
    if (!opened) return opened.as_failure();
    common::archive::ZipReader &zip = *opened.value();

    const fs::path stage = fs::path(dest) / staging_name();
    std::error_code ec;
    fs::create_directory(stage, ec);
    if (ec) return common::fail("cannot create a staging directory in " + dest + ": " + ec.message());
    auto refuse = [&](const std::string &why) {
        std::error_code ignore;
        fs::remove_all(stage, ignore);
        return common::fail(why);
    };
    try {
        for (size_t i = 0; i < zip.entries().size(); ++i) {
            const auto &entry = zip.entries()[i];
            const fs::path target = stage / entry.name;
            if (entry.directory) {
                fs::create_directories(target);
                continue;
            }
            fs::create_directories(target.parent_path());
            std::ofstream out(target, std::ios::binary | std::ios::trunc);
            if (!out) return refuse("cannot write " + target.string());
            auto unpacked = zip.read(i, [&](std::string_view piece) -> common::Status {
                out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
                if (!out) return common::fail("cannot write " + target.string());
                return common::ok();
            });
            if (!unpacked) return refuse(unpacked.error().message);
        }
        if (owner) {
            // Everything staged is this upload's own (made just now, links never followed).
            for (auto it = fs::recursive_directory_iterator(stage); it != fs::recursive_directory_iterator(); ++it)
                if (::lchown(it->path().c_str(), owner->uid, owner->gid) != 0)
                    return refuse("cannot give " + it->path().string() + " to the sandbox's user: " + std::strerror(errno));
        }
        merge_into(stage, dest);
    } catch (const std::exception &e) {
        return refuse(std::string("cannot unpack the archive: ") + e.what());
    }
    fs::remove_all(stage, ec);
    return common::ok();
}

common::Status zip_tree(const std::string &root, const std::string &zip_path) {
    try {
        std::ofstream out(zip_path, std::ios::binary | std::ios::trunc);
        if (!out) return common::fail("cannot create " + zip_path);
        Poco::Zip::Compress zip(out, true);
        std::error_code ec;
        if (fs::is_directory(fs::symlink_status(root, ec))) {
            std::vector<fs::path> files;
            for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
                 it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (ec) break;
                if (it->is_symlink()) continue;  // never follow links out of the tree
                if (it->is_regular_file()) files.push_back(it->path());
            }
            std::sort(files.begin(), files.end());
            for (const auto &f : files) {
                std::ifstream fin(f, std::ios::binary);
                if (!fin) continue;  // unreadable files are left out rather than failing the download
                struct stat st{};
                ::stat(f.c_str(), &st);
                const Poco::DateTime mtime(Poco::Timestamp::fromEpochTime(st.st_mtime));
                zip.addFile(fin, mtime, Poco::Path(fs::relative(f, root).string(), Poco::Path::PATH_UNIX),
                            Poco::Zip::ZipCommon::CM_DEFLATE, Poco::Zip::ZipCommon::CL_NORMAL);
            }
        }
        const Poco::Zip::ZipArchive written = zip.close();
        out.close();
        if (!out) return common::fail("cannot write " + zip_path);
        // Files only, as OpenHands' zipfile archive: Poco adds an entry for every directory of a file two or
        // more levels down ("sub/deeper/"), which its ZipManipulator then takes out again (a rewrite
        // copying the compressed data as it is).
        std::vector<std::string> directories;
        for (auto it = written.headerBegin(); it != written.headerEnd(); ++it)
            if (it->second.isDirectory()) directories.push_back(it->first);
        if (!directories.empty()) {
            Poco::Zip::ZipManipulator files_only(zip_path, false);
            for (const auto &d : directories) files_only.deleteFile(d);
            files_only.commit();
        }
    } catch (const std::exception &e) {
        return common::fail(std::string("cannot create the archive: ") + e.what());
    }
    return common::ok();
}

}  // namespace actionhost::host
