#include "actionhost/client/file_copy.hpp"

#include <Poco/Zip/ZipArchive.h>
#include <Poco/Zip/ZipStream.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "actionhost/client/shell_quote.hpp"
#include "local_tree.hpp"

namespace actionhost::client {

namespace fs = std::filesystem;

void copy_to(WireClient &wire, const std::string &local_src, const std::string &sandbox_dest, bool recursive) {
    std::error_code ec;
    if (!fs::exists(local_src, ec)) throw WireError("No such file or directory: " + local_src);
    wire.upload(local_src, sandbox_dest, recursive || fs::is_directory(local_src, ec));
}

std::vector<ZipEntry> read_zip(const std::string &zip_bytes) {
    std::vector<ZipEntry> out;
    std::istringstream in(zip_bytes);
    Poco::Zip::ZipArchive archive(in);
    for (auto it = archive.headerBegin(); it != archive.headerEnd(); ++it) {
        if (it->second.isDirectory()) continue;
        std::istringstream again(zip_bytes);
        Poco::Zip::ZipInputStream entry(again, it->second, true);
        std::ostringstream content;
        content << entry.rdbuf();
        out.push_back({it->second.getFileName(), content.str()});
    }
    return out;
}

namespace {

// The zip, and whether the path was a file.
std::pair<std::string, bool> fetch_zip(WireClient &wire, const std::string &sandbox_path) {
    std::string zip = wire.download(sandbox_path);
    if (!read_zip(zip).empty()) return {zip, false};
    // An empty zip: an empty directory, or a file (which /download_files never packs). Copy a file into
    // a private directory, download that, remove it.
    ShellResult r = run_hidden(wire, "f=" + bash_quote(sandbox_path) +
                                         "; if [ -f \"$f\" ]; then d=$(mktemp -d) && cp -p -- \"$f\" \"$d/\" && printf '%s' \"$d\"; fi");
    std::string dir = r.output;
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    if (r.exit_code != 0) throw WireError("Cannot read " + sandbox_path + " in the sandbox: " + r.output);
    if (dir.empty()) return {zip, false};  // an empty directory
    if (dir[0] != '/') throw WireError("Cannot read " + sandbox_path + " in the sandbox: " + r.output);
    std::string file_zip;
    try {
        file_zip = wire.download(dir);
    } catch (...) {
        run_hidden(wire, "rm -rf -- " + bash_quote(dir));
        throw;
    }
    run_hidden(wire, "rm -rf -- " + bash_quote(dir));
    return {file_zip, true};
}

}  // namespace

std::string copy_from(WireClient &wire, const std::string &sandbox_path) { return fetch_zip(wire, sandbox_path).first; }

std::vector<std::string> copy_from_into(WireClient &wire, const std::string &sandbox_path, const std::string &local_dir) {
    auto [zip, is_file] = fetch_zip(wire, sandbox_path);
    fs::path src(sandbox_path);
    while (src.has_relative_path() && src.filename().empty()) src = src.parent_path();  // "/a/b/" → "/a/b"
    std::string top = src.filename().string();
    fs::path root = fs::absolute(local_dir).lexically_normal();
    auto entries = read_zip(zip);
    // A directory's entries are relative to it; put them under its name. A file's entry is its name.
    fs::path base = (is_file || top.empty()) ? root : root / top;
    std::vector<std::string> written;
    for (const auto &e : entries) {
        fs::path target = (base / fs::path(e.name)).lexically_normal();
        auto rel = target.lexically_relative(root);
        if (rel.empty() || *rel.begin() == "..") throw WireError("Refusing a zip entry outside " + root.string() + ": " + e.name);
        // Never through a link: the local tree is often the workspace, where the agent may plant one.
        detail::write_local_file(root.string(), rel.string(), e.content);
        written.push_back(target.string());
    }
    if (!is_file) detail::make_local_dir(root.string(), base.lexically_relative(root).string());
    return written;
}

}  // namespace actionhost::client
