#include "http/web_view.hpp"


#include <actionhost/common/http/websocket.hpp>

#include <algorithm>
#include <map>
#include <unistd.h>
#include <filesystem>
#include <sys/stat.h>

#include "files/file_roots.hpp"
#include "http/body.hpp"
#include "http/files_api.hpp"
#include "http/terminal_api.hpp"
#include "web/web_view_page.hpp"
#include <actionhost/common/random.hpp>

namespace actionhost::host {
namespace {

namespace fs = std::filesystem;
using common::http::query_parameter;

constexpr const char *kCookie = "ah_view";
constexpr const char *kHtml = "text/html; charset=utf-8";

// Constant time in the content (both sides are the token's fixed length when it matters).
bool same_secret(const std::string &a, const std::string &b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

std::string cookie_value(const std::string &header, const std::string &name) {
    size_t at = 0;
    while (at < header.size()) {
        size_t end = header.find(';', at);
        if (end == std::string::npos) end = header.size();
        std::string pair = header.substr(at, end - at);
        pair.erase(0, pair.find_first_not_of(' '));
        if (pair.rfind(name + "=", 0) == 0) return pair.substr(name.size() + 1);
        at = end + 1;
    }
    return "";
}

// Security headers of every page: no framing (clickjacking), no scripts but our own, no Referer out.
void page_headers(Response &resp) {
    resp.set_header("Cache-Control", "no-store");
    resp.set_header("X-Frame-Options", "DENY");
    resp.set_header("Referrer-Policy", "no-referrer");
    resp.set_header("Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self' ws: wss:; frame-ancestors 'none'");
}

// The newest PNG in the image directories plugins declare (manifest "provides.images"), with the title
// of its feed. Bounded: at most 10 000 entries looked at per directory.
struct LatestImage {
    std::string path;
    std::string title;
};
std::optional<LatestImage> latest_image(const modules::ModuleRegistry &registry, const std::string &working_dir) {
    std::error_code ec;
    std::optional<LatestImage> best;
    fs::file_time_type best_time{};
    for (const modules::Manifest &m : registry.modules())
        for (const modules::ImageFeed &feed : m.image_feeds) {
            size_t looked = 0;
            for (fs::directory_iterator it(fs::path(working_dir) / feed.dir, ec), end; !ec && it != end && looked < 10000;
                 it.increment(ec), ++looked) {
                // A link is never followed (the directory is the sandbox's to write), and the path policy
                // of every download applies.
                if (it->path().extension() != ".png" || !it->is_regular_file(ec) || it->is_symlink(ec)) continue;
                const auto t = it->last_write_time(ec);
                if (best && t <= best_time) continue;
                if (!file_access(it->path().string())) continue;
                best = LatestImage{it->path().string(), feed.title}, best_time = t;
            }
            ec.clear();
        }
    return best;
}

// The web view's terminal WebSocket: a browser sends Origin on every WebSocket handshake, and only the
// host's own page may use the cookie (Cross-Site WebSocket Hijacking: SameSite does not separate the
// ports of one host, and any page the sandbox serves on another port of 127.0.0.1 is "same-site").
bool same_origin(const Request &req) {
    const std::string origin = req.header("Origin");
    if (origin.empty()) return true;  // no web page sent it: it authenticated with the key or cookie anyway
    const std::string host = req.header("Host");
    return origin == "http://" + host || origin == "https://" + host;
}

}  // namespace

WebViewAccess::WebViewAccess(const ApiKeyCheck &key) : key_(key) {
    token_ = common::random_hex(32);
}

bool WebViewAccess::allows(const Request &req) const {
    if (!key_.enabled()) return true;
    const std::string header_key = req.header("X-Session-API-Key");
    if (!header_key.empty()) return key_.accepts(header_key);
    return same_secret(cookie_value(req.header("Cookie"), kCookie), token_);
}

std::optional<std::string> WebViewAccess::login(const std::string &presented_key) const {
    if (!key_.accepts(presented_key)) return std::nullopt;
    return std::string(kCookie) + "=" + token_ + "; Path=/ui; HttpOnly; SameSite=Strict";
}

namespace {

// The page's scripts and styles: files of the install, the same for every host, none of them a secret
// (the sign-in page needs login.js before any key), so served without the key or cookie.
void serve_asset(ApiContext &ctx, Response &resp, const std::string &file, const std::string &method) {
    if (method != "GET" && method != "HEAD") return send_detail(resp, 405, "Method Not Allowed");
    static const std::map<std::string, std::string> kAssets = {{"app.js", "text/javascript"},      {"login.js", "text/javascript"},
                                                               {"xterm.js", "text/javascript"},    {"addon-fit.js", "text/javascript"},
                                                               {"xterm.css", "text/css"}};
    const auto it = kAssets.find(file);
    const std::string on_disk = ctx.env.facts().install_dir + "/share/actionhost/web/" + file;
    if (it == kAssets.end() || ::access(on_disk.c_str(), R_OK) != 0) return send_detail(resp, 404, "Not Found");
    resp.set_header("Cache-Control", "max-age=3600");
    resp.send_file(200, it->second, on_disk);
}

}  // namespace

bool is_web_view_path(const std::string &path) { return path == "/ui" || path.rfind("/ui/", 0) == 0; }

void serve_web_view(ApiContext &ctx, const WebViewAccess &access, Request &req, Response &resp, const std::string &path,
                    const std::string &query) {
    const std::string &method = req.method();
    if (path == "/ui/login") {
        if (method != "POST") return send_detail(resp, 405, "Method Not Allowed");
        const BodyText body = read_body(req, 4096);
        if (!body.text) return send_detail(resp, body.status, body.detail);
        const auto cookie = access.login(query_parameter(*body.text, "key").value_or(""));
        page_headers(resp);
        if (!cookie) return resp.send(403, kHtml, web_view_login_page("That is not this host's session key."));
        resp.set_header("Set-Cookie", *cookie);
        resp.set_header("Location", "/ui");
        return resp.send(303, kHtml, "");
    }
    if (path.rfind("/ui/assets/", 0) == 0) return serve_asset(ctx, resp, path.substr(11), method);
    if (!access.allows(req)) {
        if (path == "/ui" && (method == "GET" || method == "HEAD")) {
            page_headers(resp);
            return resp.send(200, kHtml, web_view_login_page(""));
        }
        return send_detail(resp, 403, "Invalid API Key");
    }
    if (method != "GET" && method != "HEAD") return send_detail(resp, 405, "Method Not Allowed");
    const std::string &wd = ctx.env.facts().working_dir;
    if (path == "/ui") {
        page_headers(resp);
        return resp.send(200, kHtml, web_view_page());
    }
    if (path == "/ui/terminals") {
        nlohmann::json list = nlohmann::json::array();
        if (ctx.terminals)
            for (const auto &t : ctx.terminals->list())
                list.push_back({{"name", t.name}, {"pid", t.pid}, {"clients", t.clients}, {"age_s", t.age_s}});
        return send_json(resp, 200, list);
    }
    if (path == "/ui/terminal") {
        if (!same_origin(req)) return send_detail(resp, 403, "a WebSocket from another origin may not use the web view's cookie");
        if (ctx.terminals == nullptr) return send_detail(resp, 501, "this host serves no terminals");
        return serve_terminal(*ctx.terminals, req, resp, query, [&ctx](const std::string &m) { ctx.env.log(AH_LOG_INFO, "web view", m); });
    }
    if (path == "/ui/files") {
        const auto dir = query_parameter(query, "path");
        const std::string full = !dir || dir->empty() ? wd : ((*dir)[0] == '/' ? *dir : wd + "/" + *dir);
        if (auto allowed = file_access(full); !allowed) return send_detail(resp, 403, allowed.error().message);
        return send_json(resp, 200, {{"path", full}, {"entries", list_directory(wd, full)}});
    }
    if (path == "/ui/download") {
        const auto file = query_parameter(query, "path");
        if (!file || file->empty()) return send_detail(resp, 422, "path is required");
        const std::string full = (*file)[0] == '/' ? *file : wd + "/" + *file;
        if (auto allowed = file_access(full); !allowed) return send_detail(resp, 403, allowed.error().message);
        struct stat st{};
        if (::stat(full.c_str(), &st) != 0) return send_detail(resp, 404, "File not found: " + full);
        if (S_ISDIR(st.st_mode)) {  // a directory: a zip of it
            send_download(resp, full);
            return;
        }
        resp.set_header("Content-Disposition", common::http::attachment_disposition(fs::path(full).filename().string()));
        resp.set_header("X-Content-Type-Options", "nosniff");
        return resp.send_file(200, "application/octet-stream", full);
    }
    if (path == "/ui/screenshot") {
        const auto shot = latest_image(ctx.router.registry(), wd);
        if (!shot) return resp.send(204, "", "");  // none yet
        resp.set_header("Cache-Control", "no-store");
        resp.set_header("X-Image-Title", shot->title);
        return resp.send_file(200, "image/png", shot->path);
    }
    send_detail(resp, 404, "Not Found");
}

}  // namespace actionhost::host
