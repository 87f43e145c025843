#include "http/files_api.hpp"

#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/NameValueCollection.h>
#include <Poco/Net/PartHandler.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "files/zip_files.hpp"
#include "http/responses.hpp"

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string random_suffix() {
    std::random_device rd;
    return std::to_string(rd()) + std::to_string(rd());
}

// Writes the "file" part to a hidden temp file in the destination, counting bytes against a limit.
class UploadPartHandler : public Poco::Net::PartHandler {
  public:
    UploadPartHandler(std::string dir, uint64_t limit) : dir_(std::move(dir)), limit_(limit) {}
    ~UploadPartHandler() override {
        if (!kept_ && !temp_.empty()) ::unlink(temp_.c_str());
    }

    void handlePart(const Poco::Net::MessageHeader &header, std::istream &stream) override {
        std::string disposition, name;
        Poco::Net::NameValueCollection params;
        Poco::Net::MessageHeader::splitParameters(header.get("Content-Disposition", ""), disposition, params);
        if (params.get("name", "") != "file" || !temp_.empty()) {
            char sink[8192];
            while (stream.read(sink, sizeof sink) || stream.gcount() > 0) {}
            return;
        }
        filename_ = params.get("filename", "");
        temp_ = dir_ + "/.ahupload-" + random_suffix() + ".part";
        std::ofstream out(temp_, std::ios::binary | std::ios::trunc);
        if (!out) {
            error_ = "cannot write into " + dir_;
            return;
        }
        char buf[65536];
        while (stream) {
            stream.read(buf, sizeof buf);
            const auto n = static_cast<uint64_t>(stream.gcount());
            if (n == 0) break;
            size_ += n;
            if (size_ > limit_) {
                too_large_ = true;
                while (stream.read(buf, sizeof buf) || stream.gcount() > 0) {}
                return;
            }
            out.write(buf, static_cast<std::streamsize>(n));
        }
        if (!out) error_ = "cannot write into " + dir_;
    }

    std::string dir_, temp_, filename_, error_;
    uint64_t limit_, size_ = 0;
    bool too_large_ = false, kept_ = false;
};

}  // namespace

nlohmann::json list_directory(const std::string &working_dir, const std::optional<std::string> &path) {
    fs::path full = !path ? fs::path(working_dir) : (!path->empty() && (*path)[0] == '/') ? fs::path(*path)
                                                                                          : fs::path(working_dir) / *path;
    std::error_code ec;
    if (!fs::is_directory(full, ec)) return nlohmann::json::array();
    std::vector<std::string> dirs, files;
    for (const auto &e : fs::directory_iterator(full, ec)) {
        const std::string name = e.path().filename().string();
        std::error_code ec2;
        if (fs::is_directory(e.path(), ec2)) dirs.push_back(name + "/");
        else files.push_back(name);
    }
    if (ec) return nlohmann::json::array();
    auto by_lower = [](const std::string &a, const std::string &b) { return lower(a) < lower(b); };
    std::stable_sort(dirs.begin(), dirs.end(), by_lower);
    std::stable_sort(files.begin(), files.end(), by_lower);
    nlohmann::json out = dirs;
    for (auto &f : files) out.push_back(f);
    return out;
}

UploadResult handle_upload(Poco::Net::HTTPServerRequest &req, const std::string &destination, bool recursive,
                           uint64_t max_bytes) {
    if (destination.empty() || destination[0] != '/')
        return {500, {{"detail", "400: Destination must be an absolute path"}}};
    std::error_code ec;
    fs::create_directories(destination, ec);
    if (!fs::is_directory(destination, ec))
        return {400, {{"detail", "Destination " + destination + " is not a directory and cannot be created"}}};
    UploadPartHandler part(destination, max_bytes);
    try {
        Poco::Net::HTMLForm form;
        form.setFieldLimit(100);
        form.load(req, req.stream(), part);
    } catch (const std::exception &e) {
        return {422, {{"detail", "Invalid request parameters"}, {"errors", std::string("bad multipart body: ") + e.what()}}};
    }
    if (part.too_large_) return {413, {{"detail", "Upload too large: the limit is " + std::to_string(max_bytes) + " bytes"}}};
    if (!part.error_.empty()) return {500, {{"detail", part.error_}}};
    if (part.temp_.empty()) return {422, {{"detail", "Invalid request parameters"}, {"errors", "the multipart field \"file\" is required"}}};
    // Only the base name counts: a client cannot steer the file out of its destination.
    std::string filename = fs::path(part.filename_).filename().string();
    if (filename.empty() || filename == "." || filename == "..")
        return {422, {{"detail", "Invalid request parameters"}, {"errors", "the uploaded file needs a file name"}}};
    const bool is_zip = lower(filename).size() >= 4 && lower(filename).substr(lower(filename).size() - 4) == ".zip";
    if (recursive && !is_zip) return {500, {{"detail", "400: Recursive uploads must be zip files"}}};
    if (is_zip) {
        std::string why = unzip_safely(part.temp_, destination, UnzipLimits{});
        if (!why.empty()) return {400, {{"detail", "Upload refused, nothing was unpacked: " + why}}};
    } else {
        const std::string target = destination + "/" + filename;
        if (fs::is_directory(fs::symlink_status(target, ec)))
            return {400, {{"detail", "Cannot upload over the directory " + target}}};
        if (::rename(part.temp_.c_str(), target.c_str()) != 0)
            return {500, {{"detail", "Cannot place the upload at " + target}}};
        part.kept_ = true;
    }
    return {200, {{"filename", part.filename_}, {"destination", destination}, {"recursive", recursive}}};
}

void send_download(Poco::Net::HTTPServerResponse &resp, const std::string &path) {
    if (path.empty() || path[0] != '/') return send_detail(resp, 500, "400: Path must be an absolute path");
    std::error_code ec;
    if (!fs::exists(path, ec)) return send_detail(resp, 500, "404: File not found");
    char tmpl[] = "/tmp/ahdownload-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) return send_detail(resp, 500, "Cannot create a temporary archive");
    ::close(fd);
    const std::string zip_path = tmpl;
    const std::string why = zip_tree(path, zip_path);
    if (!why.empty()) {
        ::unlink(zip_path.c_str());
        return send_detail(resp, 500, why);
    }
    std::string base = fs::path(path).filename().string();
    if (base.empty()) base = fs::path(path).parent_path().filename().string();
    resp.set("Content-Disposition", "attachment; filename=\"" + base + ".zip\"");
    try {
        resp.sendFile(zip_path, "application/zip");
    } catch (...) {
        ::unlink(zip_path.c_str());
        throw;
    }
    ::unlink(zip_path.c_str());
}

}  // namespace actionhost::host
