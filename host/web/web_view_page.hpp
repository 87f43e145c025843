// The web view's two pages (http/web_view.cpp serves them).
#pragma once

#include <string>

namespace actionhost::host {

// The page: terminals (xterm.js from /ui/assets), file tree, the newest image a plugin declared.
const std::string &web_view_page();
// The login form (POST /ui/login); `error` shown above it when not empty (plain text).
std::string web_view_login_page(const std::string &error);

}  // namespace actionhost::host
