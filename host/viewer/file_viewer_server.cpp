#include "viewer/file_viewer_server.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <Poco/URI.h>
#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/result.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "http/responses.hpp"
#include "viewer/file_viewer_page.hpp"
#include <actionhost/common/random.hpp>

namespace actionhost::host {
namespace {

std::string random_capability() { return common::random_hex(16); }

// OpenHands' find_available_tcp_port: ten random ports of the range, the first that binds; else (no API
// port to count from, or ten busy ports) any free port.
std::unique_ptr<common::http::Server> bind_viewer(int main_port, common::http::Handler handler) {
    common::http::ServerSettings settings;
    settings.name = "viewer";
    settings.max_handlers = 16;
    if (main_port > 0 && main_port < 65535) {
        std::vector<int> ports(static_cast<size_t>(std::min(main_port + 1024, 65535) - main_port));
        std::iota(ports.begin(), ports.end(), main_port + 1);
        std::shuffle(ports.begin(), ports.end(), std::mt19937(std::random_device{}()));
        for (size_t i = 0; i < ports.size() && i < 10; ++i) {
            try {
                return std::make_unique<common::http::Server>("127.0.0.1", static_cast<uint16_t>(ports[i]), handler, settings);
            } catch (const std::exception &) {
            }
        }
    }
    return std::make_unique<common::http::Server>("127.0.0.1", 0, handler, settings);
}

// Writes `text` to `path` whole, through a new private file renamed over it: a reader never sees half a
// URL, and a link planted at a guessable temporary name in a shared /tmp is never followed.
common::Status write_private(const std::string &path, const std::string &text, uid_t uid, gid_t gid) {
    std::string tmpl = path + ".XXXXXX";
    const int fd = ::mkstemp(tmpl.data());  // O_CREAT|O_EXCL, mode 0600
    if (fd < 0) return common::fail("cannot create a file beside " + path, errno);
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (ok && (uid != static_cast<uid_t>(-1) || gid != static_cast<gid_t>(-1))) ok = ::fchown(fd, uid, gid) == 0;
    ::close(fd);
    if (!ok || ::rename(tmpl.c_str(), path.c_str()) != 0) {
        ::unlink(tmpl.c_str());
        return common::fail("cannot write " + path + " (another user's file there cannot be replaced in a sticky directory)");
    }
    return common::ok();
}

// Whether the regular file at `path` (not followed if a link) holds exactly `text`.
bool holds_exactly(const std::string &path, const std::string &text) {
    common::io::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd) return false;
    std::string content(text.size() + 1, '\0');
    const ssize_t n = ::read(fd.get(), content.data(), content.size());
    return n == static_cast<ssize_t>(text.size()) && content.compare(0, text.size(), text) == 0;
}

}  // namespace

FileViewerServer::FileViewerServer(const FileViewerSettings &settings)
    : capability_(random_capability()), capability_check_(capability_), key_check_(settings.session_api_key) {
    try {
        server_ = bind_viewer(settings.main_port, [this](common::http::Request &req, common::http::Response &resp) { handle(req, resp); });
    } catch (const std::exception &e) {
        throw std::runtime_error(std::string("the file viewer cannot listen on 127.0.0.1: ") + e.what());
    }
    port_ = server_->port();
    url_ = "http://localhost:" + std::to_string(port_) + "/" + capability_;
    server_->start();
    if (!settings.url_file.empty()) {
        auto written = write_private(settings.url_file, url_, settings.url_file_uid, settings.url_file_gid);
        if (!written && settings.log) settings.log(written.error().message);
        if (written) url_file_ = settings.url_file;
    }
    if (settings.log) settings.log("file viewer server started at http://localhost:" + std::to_string(port_));
}

FileViewerServer::~FileViewerServer() {
    server_->stop();
    // The URL names a server that is gone: the file goes too, unless another host has written its own
    // URL there since (two hosts on one machine share the name).
    if (!url_file_.empty() && holds_exactly(url_file_, url_)) ::unlink(url_file_.c_str());
}

void FileViewerServer::handle(common::http::Request &req, common::http::Response &resp) {
    try {
        const auto [raw_path, query] = common::http::split_target(req.target());
        std::string path;
        Poco::URI::decode(raw_path, path);
        // "/<capability>/view" is the URL handed out; "/view" needs the session key instead.
        bool allowed = key_check_.enabled() && key_check_.accepts(req.header("X-Session-API-Key"));
        const size_t second = path.find('/', 1);
        const std::string first = path.substr(1, second == std::string::npos ? std::string::npos : second - 1);
        if (!first.empty() && first != "view" && capability_check_.accepts(first)) {
            allowed = true;
            path = second == std::string::npos ? "/" : path.substr(second);
        }
        if (path != "/" && path != "/view") return send_detail(resp, 404, "Not Found");
        if (req.method() != "GET") return send_detail(resp, 405, "Method Not Allowed");
        if (path == "/") return send_json(resp, 200, {{"status", "File viewer server is running"}});
        if (!allowed)
            return send_detail(resp, 403, "The file viewer's URL is in the session's /tmp/oh-server-url; use it (or send X-Session-API-Key)");
        const std::optional<std::string> file = common::http::query_parameter(query, "path");
        if (!file) {
            // FastAPI's answer to a missing required query parameter.
            return send_json(resp, 422, {{"detail", nlohmann::json::array({{{"type", "missing"},
                                                                              {"loc", {"query", "path"}},
                                                                              {"msg", "Field required"},
                                                                              {"input", nullptr}}})}});
        }
        answer_view(*file, req.remote_address(), resp);
    } catch (const std::exception &) {
        if (!resp.sent()) send_detail(resp, 500, "An unexpected error occurred. Please try again later.");
    }
}

}  // namespace actionhost::host
