#include "viewer/file_viewer_page.hpp"

#include <Poco/Base64Encoder.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "files/file_roots.hpp"

#include <actionhost/common/text.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::host {
namespace {

constexpr std::array<const char *, 5> kSupported = {".pdf", ".png", ".jpg", ".jpeg", ".gif"};
// The page inlines the file as base64: past this a page would strain the host and the browser alike.
constexpr off_t kMaxViewedBytes = 64 << 20;
constexpr const char *kHtml = "text/html; charset=utf-8";

using common::http::Response;


// A JavaScript string literal's inside (OpenHands writes the raw path between double quotes); JSON's
// escaping keeps an ordinary path byte-identical, and "</" is broken up so the text cannot end the script.
std::string js_string_body(const std::string &s) {
    std::string quoted = actionhost::common::dump_json(nlohmann::json(s));
    std::string body = quoted.substr(1, quoted.size() - 2);
    for (size_t pos = 0; (pos = body.find("</", pos)) != std::string::npos; pos += 3) body.replace(pos, 2, "<\\/");
    return body;
}

std::string mime_type_of(const std::string &ext) {
    if (ext == ".pdf") return "application/pdf";
    if (ext == ".png") return "image/png";
    if (ext == ".gif") return "image/gif";
    return "image/jpeg";  // .jpg, .jpeg
}

void send_error_page(Response &resp, int status, const std::string &title, const std::string &path, const std::string &extra = "") {
    std::string html = "<h1>" + title + "</h1><p>" + common::html_escape(path) + "</p>";
    if (!extra.empty() || status == 500) html += "<p>" + common::html_escape(extra) + "</p>";
    resp.send(status, kHtml, html);
}

std::string base_name(const std::string &path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The viewer page, byte for byte the template of openhands/runtime/utils/file_viewer.py for the
// binary types it supports (its text branch is unreachable with those extensions: fileContent is empty):
// the text before the file's base64 and the text after it.
struct PageAround {
    std::string before, after;
};
PageAround viewer_html(const std::string &path, const std::string &ext) {
    PageAround page;
    std::string h;
    h.reserve(4096);
    h += R"(<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <title>File Viewer - )";
    h += common::html_escape(base_name(path));
    h += R"(</title>
    <script src="https://cdnjs.cloudflare.com/ajax/libs/pdf.js/3.11.174/pdf.min.js"></script>
    <style>
        body, html { margin: 0; padding: 0; height: 100%; overflow: hidden; font-family: Arial, sans-serif; }
        #viewer-container { width: 100%; height: 100vh; overflow: auto; }
        .page { margin: 10px auto; box-shadow: 0 0 10px rgba(0,0,0,0.3); }
        .text-content { margin: 20px; white-space: pre-wrap; font-family: monospace; line-height: 1.5; }
        .error { color: red; margin: 20px; }
        img { max-width: 100%; margin: 20px auto; display: block; }
    </style>
</head>
<body>
    <div id="viewer-container"></div>
    <script>
    const filePath = ")";
    h += js_string_body(path);
    h += R"(";
    const fileExtension = ")";
    h += ext;
    h += R"(";
    const fileContent = ``;
    const fileBase64 = ")";
    page.before = std::move(h);
    h = R"(";
    const mimeType = ")";
    h += mime_type_of(ext);
    h += R"(";
    const container = document.getElementById('viewer-container');

    async function loadContent() {
        try {
            if (fileExtension === '.pdf') {
                pdfjsLib.GlobalWorkerOptions.workerSrc = 'https://cdnjs.cloudflare.com/ajax/libs/pdf.js/3.11.174/pdf.worker.min.js';
                const binaryString = atob(fileBase64);
                const bytes = new Uint8Array(binaryString.length);
                for (let i = 0; i < binaryString.length; i++) {
                    bytes[i] = binaryString.charCodeAt(i);
                }

                const loadingTask = pdfjsLib.getDocument({data: bytes.buffer});
                const pdf = await loadingTask.promise;

                // Get total number of pages
                const numPages = pdf.numPages;

                // Render each page
                for (let pageNum = 1; pageNum <= numPages; pageNum++) {
                    const page = await pdf.getPage(pageNum);

                    // Set scale for rendering
                    const viewport = page.getViewport({ scale: 1.5 });

                    // Create canvas for rendering
                    const canvas = document.createElement('canvas');
                    canvas.className = 'page';
                    canvas.width = viewport.width;
                    canvas.height = viewport.height;
                    container.appendChild(canvas);

                    // Render PDF page into canvas context
                    const context = canvas.getContext('2d');
                    const renderContext = {
                        canvasContext: context,
                        viewport: viewport
                    };

                    await page.render(renderContext).promise;
                }
            } else if (['.png', '.jpg', '.jpeg', '.gif', '.bmp'].includes(fileExtension)) {
                const img = document.createElement('img');
                img.src = `data:${mimeType};base64,${fileBase64}`;
                img.alt = filePath.split('/').pop();
                container.appendChild(img);
            } else {
                const pre = document.createElement('pre');
                pre.className = 'text-content';
                pre.textContent = fileContent;
                container.appendChild(pre);
            }
        } catch (error) {
            console.error('Error:', error);
            container.innerHTML = `<div class="error"><h2>Error loading file</h2><p>${error.message}</p></div>`;
        }
    }

    window.onload = loadContent;
    </script>
</body>
</html>)";
    page.after = std::move(h);
    return page;
}

}  // namespace

std::string lower_extension(const std::string &path) {
    const std::string base = base_name(path);
    const auto dot = base.rfind('.');
    if (dot == std::string::npos || dot == 0) return "";
    // Leading dots do not start an extension (".png" and "..png" have none).
    if (base.find_first_not_of('.') >= dot) return "";
    std::string ext = base.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

void answer_view(const std::string &path, const std::string &client_host, Response &resp) {
    if (client_host != "127.0.0.1" && client_host != "localhost" && client_host != "::1")
        return resp.send(403, kHtml, "<h1>Access Denied</h1><p>This endpoint is only accessible from localhost</p>");
    if (path.empty() || path[0] != '/') return send_error_page(resp, 400, "Error: Path must be absolute", path);
    struct stat st{};
    // A NUL cannot be in a file name; Python's os.path.exists answers False for it, so do we.
    const bool exists = path.find('\0') == std::string::npos && ::stat(path.c_str(), &st) == 0;
    if (!exists) return send_error_page(resp, 404, "Error: File not found", path);
    if (S_ISDIR(st.st_mode)) return send_error_page(resp, 400, "Error: Path is a directory", path);

    const std::string ext = lower_extension(path);
    if (std::find_if(kSupported.begin(), kSupported.end(), [&](const char *e) { return ext == e; }) == kSupported.end())
        return send_error_page(resp, 500, "Error viewing file", path,
                               "Unsupported file extension: " + ext + ". Supported extensions are: .pdf, .png, .jpg, .jpeg, .gif");
    // The host often runs as root: what it reads for the page must be a regular file inside the session's
    // roots, reached with no link swapped in after the check (file_roots.hpp).
    const common::Result<int> file = open_confined_regular_file(path);
    if (!file)
        return file.error().sys_errno == 0 ? send_error_page(resp, 403, "Error: Access denied", path, file.error().message)
                                           : send_error_page(resp, 500, "Error viewing file", path, file.error().message);
    const int fd = file.value();
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat opened{};
    if (::fstat(fd, &opened) != 0 || opened.st_size > kMaxViewedBytes)
        return send_error_page(resp, 500, "Error viewing file", path, "the file is larger than " + std::to_string(kMaxViewedBytes >> 20) + " MiB");
    // The file's base64 is encoded as the page is sent: built whole, a 64 MiB file cost ~185 MB per view
    // (its base64, the page, the response), and 16 views at once 3 GB of the host, which in a sandbox is
    // the OOM killer's pick. A file that fails to read midway ends the page early (its status is sent).
    const PageAround page = viewer_html(path, ext);
    std::ostream &out = resp.begin_stream(200, kHtml);
    out << page.before;
    {
        Poco::Base64Encoder enc(out);
        enc.rdbuf()->setLineLength(0);
        char buf[65536];
        size_t total = 0;
        for (ssize_t n; out && total <= static_cast<size_t>(kMaxViewedBytes) && (n = ::read(fd, buf, sizeof buf)) != 0;) {
            if (n < 0) {
                if (errno == EINTR) continue;
                break;
            }
            enc.write(buf, n);
            total += static_cast<size_t>(n);
        }
        enc.close();
    }
    out << page.after;
}

}  // namespace actionhost::host
