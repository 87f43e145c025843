// The pages of OpenHands' file viewer (openhands/runtime/file_viewer_server.py and
// openhands/runtime/utils/file_viewer.py): what GET /view?path= answers once the caller showed the
// viewer's capability (file_viewer_server.hpp).
#pragma once

#include <string>

#include <actionhost/common/http/exchange.hpp>

namespace actionhost::host {

// Answers /view?path=`path` for a client at `client_host` (an IP address text): 403 unless the client is
// 127.0.0.1 or ::1, 400 for a relative path or a directory, 404 for a missing file, 500 for an extension
// other than .pdf .png .jpg .jpeg .gif or an unreadable file, 403 for a path outside the session's roots
// (ACTIONHOST_EDITOR_ROOTS, links resolved) or one that is not a regular file, else the HTML viewer with
// the file inlined as base64, encoded as it is sent (chunked). Text that comes from the request is
// HTML-escaped (OpenHands inserts it raw).
void answer_view(const std::string &path, const std::string &client_host, common::http::Response &resp);

// Python's os.path.splitext(path)[1].lower(): the extension of the last component, ignoring leading dots.
std::string lower_extension(const std::string &path);

}  // namespace actionhost::host
