#include "files/zip_files.hpp"

#include "files/zip64_record_guard.hpp"

#include <Poco/DateTime.h>
#include <Poco/Path.h>
#include <Poco/Timestamp.h>
#include <Poco/Zip/Compress.h>
#include <Poco/Zip/ZipArchive.h>
#include <Poco/Zip/ZipManipulator.h>
#include <Poco/Zip/ZipStream.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

// Whether an entry name is safe to unpack, or why not.
common::Status safe_name(const std::string &name) {
    if (name.empty()) return common::fail("an entry has an empty name");
    if (name.find('\0') != std::string::npos) return common::fail("an entry name contains a NUL byte");
    if (name[0] == '/') return common::fail("entry '" + name + "' has an absolute path");
    size_t start = 0;
    while (start <= name.size()) {
        size_t slash = name.find('/', start);
        std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part == "..") return common::fail("entry '" + name + "' would be written outside the destination");
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return common::ok();
}

std::string staging_name() {
    std::random_device rd;
    return ".ahupload." + std::to_string(rd()) + std::to_string(rd());
}

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

common::Status unzip_safely(const std::string &zip_path, const std::string &dest, const UnzipLimits &limits) {
    std::ifstream in(zip_path, std::ios::binary);
    Zip64RecordGuard guard(zip_path);
    if (!in || !guard.is_open()) return common::fail("cannot open the uploaded archive");
    std::unique_ptr<Poco::Zip::ZipArchive> archive;
    try {
        std::istream guarded(&guard);  // the header walk only: see zip64_record_guard.hpp
        archive = std::make_unique<Poco::Zip::ZipArchive>(guarded);
    } catch (const std::exception &e) {
        return common::fail("not a valid zip archive: " + (guard.refused().empty() ? std::string(e.what()) : guard.refused()));
    }
    if (!guard.refused().empty()) return common::fail("not a valid zip archive: " + guard.refused());
    uint64_t declared = 0, count = 0;
    for (auto it = archive->headerBegin(); it != archive->headerEnd(); ++it) {
        const auto &h = it->second;
        if (++count > limits.max_entries) return common::fail("the archive has more than " + std::to_string(limits.max_entries) + " entries");
        if (auto safe = safe_name(h.getFileName()); !safe) return safe;
        if (h.isEncrypted()) return common::fail("entry '" + h.getFileName() + "' is encrypted");
        declared += h.getUncompressedSize();
        if (declared > limits.max_total_bytes)
            return common::fail("the archive unpacks to more than " + std::to_string(limits.max_total_bytes) + " bytes");
    }

    const fs::path stage = fs::path(dest) / staging_name();
    std::error_code ec;
    fs::create_directory(stage, ec);
    if (ec) return common::fail("cannot create a staging directory in " + dest + ": " + ec.message());
    auto refuse = [&](const std::string &why) {
        std::error_code ignore;
        fs::remove_all(stage, ignore);
        return common::fail(why);
    };
    uint64_t written = 0;
    try {
        for (auto it = archive->headerBegin(); it != archive->headerEnd(); ++it) {
            const auto &h = it->second;
            const fs::path target = stage / h.getFileName();
            if (h.isDirectory() || (!h.getFileName().empty() && h.getFileName().back() == '/')) {
                fs::create_directories(target);
                continue;
            }
            fs::create_directories(target.parent_path());
            std::ofstream out(target, std::ios::binary | std::ios::trunc);
            if (!out) return refuse("cannot write " + target.string());
            Poco::Zip::ZipInputStream zis(in, h, true);
            char buf[65536];
            while (zis) {
                zis.read(buf, sizeof buf);
                const auto n = static_cast<uint64_t>(zis.gcount());
                if (n == 0) break;
                written += n;
                if (written > limits.max_total_bytes)
                    return refuse("the archive unpacks to more than " + std::to_string(limits.max_total_bytes) + " bytes");
                out.write(buf, static_cast<std::streamsize>(n));
            }
            if (!out) return refuse("cannot write " + target.string());
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
