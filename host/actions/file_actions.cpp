#include "actions/file_actions.hpp"
#include <actionhost/common/base64.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/common/observation.hpp>
#include <actionhost/common/utf8.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "files/atomic_write.hpp"
#include "files/binary_check.hpp"
#include "files/file_roots.hpp"

namespace actionhost::host {

const std::vector<modules::ActionSpec> &host_action_specs() {
    // OpenHands' FileReadAction and FileWriteAction fields and defaults.
    static const std::vector<modules::ActionSpec> specs = [] {
        auto parsed = modules::parse_action_specs(nlohmann::ordered_json::parse(R"({
          "read": {"description": "Reads a file (lines start..end), or an image/PDF as a data URL.",
                   "args": {"path": {"type": "string", "required": true},
                            "start": {"type": "integer", "default": 0},
                            "end": {"type": "integer", "default": -1},
                            "impl_source": {"type": "string", "default": "default"},
                            "view_range": {"default": null}}},
          "write": {"description": "Writes content into a file, replacing lines start..end.",
                    "args": {"path": {"type": "string", "required": true},
                             "content": {"type": "string", "required": true},
                             "start": {"type": "integer", "default": 0},
                             "end": {"type": "integer", "default": -1}}}})"));
        if (!parsed) throw std::logic_error("the host's own action declarations: " + parsed.error().message);
        return std::move(parsed).value();
    }();
    return specs;
}

namespace {

std::string resolve(const std::string &path, const std::string &cwd) {
    if (!path.empty() && path[0] == '/') return path;
    return (std::filesystem::path(cwd) / path).string();
}

bool ends_with_ci(const std::string &s, std::initializer_list<const char *> suffixes) {
    std::string lower = s;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char *suf : suffixes) {
        const size_t n = std::strlen(suf);
        if (lower.size() >= n && lower.compare(lower.size() - n, n, suf) == 0) return true;
    }
    return false;
}

// The MIME type Python's mimetypes.guess_type gives these extensions.
std::string mime_for(const std::string &path, const std::string &fallback) {
    static const std::pair<const char *, const char *> table[] = {
        {".png", "image/png"},   {".jpg", "image/jpeg"},  {".jpeg", "image/jpeg"}, {".bmp", "image/bmp"},
        {".gif", "image/gif"},   {".pdf", "application/pdf"}, {".mp4", "video/mp4"}, {".webm", "video/webm"},
        {".ogg", "audio/ogg"}};
    for (const auto &[ext, mime] : table)
        if (ends_with_ci(path, {ext})) return mime;
    return fallback;
}

nlohmann::json read_observation(const std::string &path, const std::string &content) {
    return {{"message", "I read the file " + path + "."},
            {"observation", "read"},
            {"content", content},
            {"extras", {{"path", path}, {"impl_source", "default"}}}};
}

// Reads a whole file: 0 on success, else errno (EISDIR for directories).
int slurp(const std::string &path, std::string &out) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    std::ifstream in(path, std::ios::binary);
    if (!in) return errno ? errno : EACCES;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return 0;
}

// Python's text mode reads with universal newlines: "\r\n" and "\r" become "\n".
std::string universal_newlines(const std::string &s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out += '\n';
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> split_lines_keepends(const std::string &text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, nl - start + 1));
        start = nl + 1;
    }
    return lines;
}

std::vector<std::string> select_lines(const std::vector<std::string> &lines, long long start, long long end) {
    const long long n = static_cast<long long>(lines.size());
    start = std::min(std::max(start, 0LL), n);
    if (end != -1) end = std::min(std::max(end, 0LL), n);
    if (end == -1) return std::vector<std::string>(lines.begin() + start, lines.end());
    const long long count = std::max(end - start, 1LL);
    const long long stop = std::min(start + count, n);
    return std::vector<std::string>(lines.begin() + start, lines.begin() + std::max(start, stop));
}

std::string splice_lines(const std::vector<std::string> &insert, const std::vector<std::string> &original,
                         long long start, long long end) {
    // Python slicing semantics: negative indices count from the end, out of range clamps.
    const long long n = static_cast<long long>(original.size());
    auto clamp = [&](long long i) {
        if (i < 0) i += n;
        return std::min(std::max(i, 0LL), n);
    };
    std::string out;
    if (start != 0)
        for (long long i = 0; i < clamp(start); ++i) out += original[static_cast<size_t>(i)];
    for (const auto &line : insert) out += line + "\n";
    if (end != -1)
        for (long long i = clamp(end); i < n; ++i) out += original[static_cast<size_t>(i)];
    return out;
}

nlohmann::json read_action(const nlohmann::json &args, const FileActionContext &ctx) {
    const std::string path = resolve(args.at("path").get<std::string>(), ctx.cwd);
    if (auto allowed = file_access(path); !allowed) return common::error_observation(allowed.error().message);
    const long long start = args.value("start", 0LL);
    const long long end = args.value("end", -1LL);
    std::string bytes;
    // Media first: a PNG is binary, and OpenHands' check-binary-first order makes it unreadable there.
    const bool image = ends_with_ci(path, {".png", ".jpg", ".jpeg", ".bmp", ".gif"});
    const bool pdf = ends_with_ci(path, {".pdf"});
    const bool video = ends_with_ci(path, {".mp4", ".webm", ".ogg"});
    int err = 0;
    if (image || pdf || video) {
        err = slurp(path, bytes);
        if (err == 0) {
            const std::string mime = mime_for(path, image ? "image/png" : pdf ? "application/pdf" : "video/mp4");
            return read_observation(path, "data:" + mime + ";base64," + actionhost::common::base64_encode(bytes));
        }
    } else {
        // One read of the file serves both the binary check (its first 1024 bytes) and the content.
        err = slurp(path, bytes);
        if (err == 0 && looks_binary(std::string_view(bytes).substr(0, 1024)))
            return common::error_observation("ERROR_BINARY_FILE");
    }
    if (err == ENOENT || err == ENOTDIR)
        return common::error_observation("File not found: " + path + ". Your current working directory is " + ctx.cwd + ".");
    if (err == EISDIR) return common::error_observation("Path is a directory: " + path + ". You can only read files");
    if (err != 0) return common::error_observation("Cannot read " + path + ": " + std::strerror(err));
    if (!common::is_valid_utf8(bytes)) return common::error_observation("File could not be decoded as utf-8: " + path + ".");
    std::string text = universal_newlines(bytes);
    if (start == 0 && end == -1) return read_observation(path, text);  // the whole file: no line split needed
    std::string content;
    for (const auto &l : select_lines(split_lines_keepends(text), start, end)) content += l;
    return read_observation(path, content);
}

nlohmann::json write_action(const nlohmann::json &args, const FileActionContext &ctx) {
    const std::string path = resolve(args.at("path").get<std::string>(), ctx.cwd);
    if (auto allowed = file_access(path); !allowed) return common::error_observation(allowed.error().message);
    const std::string content = args.at("content").get<std::string>();
    const long long start = args.value("start", 0LL);
    const long long end = args.value("end", -1LL);
    if (!common::is_valid_utf8(content))
        return common::error_observation("Content to write to " + path + " is not valid UTF-8; nothing was written");

    std::vector<std::string> insert;
    {
        size_t s = 0;
        while (true) {
            size_t nl = content.find('\n', s);
            insert.push_back(content.substr(s, nl == std::string::npos ? std::string::npos : nl - s));
            if (nl == std::string::npos) break;
            s = nl + 1;
        }
    }
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
        std::filesystem::create_directories(parent, ec);
        if (ec) return common::error_observation("File not found: " + path);
    }
    struct stat st{};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return common::error_observation("Path is a directory: " + path + ". You can only write to files");
    std::string new_content;
    FileOwnership own{0664, static_cast<uid_t>(ctx.user_id), static_cast<gid_t>(ctx.user_id)};
    if (exists) {
        if (!S_ISREG(st.st_mode)) return common::error_observation("Path is not a regular file: " + path + ". You can only write to files");
        std::string old;
        int err = slurp(path, old);
        if (err != 0) return common::error_observation("Cannot read " + path + ": " + std::strerror(err));
        if (!common::is_valid_utf8(old)) return common::error_observation("File could not be decoded as utf-8: " + path);
        new_content = splice_lines(insert, split_lines_keepends(universal_newlines(old)), start, end);
        own = *ownership_of(path);
    } else {
        for (const auto &l : insert) new_content += l + "\n";
        if (::geteuid() != 0) own = FileOwnership{0664, ::geteuid(), ::getegid()};
    }
    if (auto written = atomic_write(path, new_content, own); !written) {
        if (written.error().sys_errno == ENOENT) return common::error_observation("File not found: " + path);
        return common::error_observation("Cannot write " + path + ": " + written.error().message + "; the file is unchanged");
    }
    return {{"message", "I wrote to the file " + path + "."},
            {"observation", "write"},
            {"content", ""},
            {"extras", {{"path", path}}}};
}

}  // namespace actionhost::host
