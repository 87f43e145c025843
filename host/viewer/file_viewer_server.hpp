// OpenHands' file viewer server: a second HTTP server on 127.0.0.1, on a random free port in
// [PORT+1, min(PORT+1024, 65535)], whose URL is written to /tmp/oh-server-url. Agents read that file and
// open `<url>/view?path=/abs/file.pdf` in the browser.
//
// Unlike OpenHands', the URL carries a capability: `http://localhost:<port>/<random>`. The file holding it
// is private to the session's user, so the agent (which reads it, as OpenHands tells it to) can view
// files, and another local user of the machine — who can reach any loopback port — cannot: without the
// capability (or the session key in X-Session-API-Key) /view answers 403. `GET /` answers as OpenHands'.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>

#include <actionhost/common/http/server.hpp>

#include "http/auth.hpp"

namespace actionhost::host {

struct FileViewerSettings {
    int main_port = 0;                            // the API's port; 0 (ephemeral) → an ephemeral port here too
    std::string url_file = "/tmp/oh-server-url";  // where the URL is written ("" = nowhere)
    std::string session_api_key;                  // accepted in X-Session-API-Key too ("" = the capability only)
    uid_t url_file_uid = static_cast<uid_t>(-1);  // the session's user, who alone may read the URL file
    gid_t url_file_gid = static_cast<gid_t>(-1);  // (-1: the host's own ids)
    std::function<void(const std::string &)> log;
};

class FileViewerServer {
  public:
    // Binds and starts serving; throws std::runtime_error when no port can be bound.
    explicit FileViewerServer(const FileViewerSettings &settings);
    ~FileViewerServer();  // stops serving, removes the URL file if it still holds this server's URL
    FileViewerServer(const FileViewerServer &) = delete;
    FileViewerServer &operator=(const FileViewerServer &) = delete;

    int port() const { return port_; }
    // The URL written to the URL file, capability included.
    const std::string &url() const { return url_; }

  private:
    void handle(common::http::Request &req, common::http::Response &resp);

    std::string capability_;
    ApiKeyCheck capability_check_, key_check_;
    std::unique_ptr<common::http::Server> server_;
    int port_ = 0;
    std::string url_;
    std::string url_file_;  // where url_ was written ("" = nowhere), removed when the server stops
};

}  // namespace actionhost::host
