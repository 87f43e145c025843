// The supervisor's web view under /ui: for the person watching an agent work, a page with a live
// terminal of each named terminal (xterm.js), the workspace's file tree with downloads, and the newest
// image of the directories plugins declare in their manifests ("provides.images", e.g. screenshots) (docs/api.md, "Web view"; docs/security.md says who may reach it).
//
// Authentication: the session key (X-Session-API-Key) as everywhere, or the view's cookie. A browser
// cannot set that header, so /ui shows a login form; the key is POSTed once (never in a URL, so never in
// history, logs or a Referer) and answered with a cookie holding a random token of this process — not
// the key — HttpOnly (no script reads it), SameSite=Strict and Path=/ui (no other path of the host takes
// it: the cookie can never execute an action through /execute_action). Everything the cookie opens is a
// GET without side effects, except the terminal WebSocket, whose Origin must be the host's own page.
#pragma once

#include <string>

#include "http/api.hpp"

namespace actionhost::host {

class WebViewAccess {
  public:
    explicit WebViewAccess(const ApiKeyCheck &key);
    // Whether the request carries the key or the view's cookie (always, when the host has no key).
    bool allows(const Request &req) const;
    // The key, as typed into the login form: the cookie to set, or nullopt.
    std::optional<std::string> login(const std::string &presented_key) const;

  private:
    const ApiKeyCheck &key_;
    std::string token_;  // random per process: a restart signs every viewer out
};

// Whether `path` belongs to the web view (its handler does its own authentication).
bool is_web_view_path(const std::string &path);
void serve_web_view(ApiContext &ctx, const WebViewAccess &access, Request &req, Response &resp, const std::string &path,
                    const std::string &query);

}  // namespace actionhost::host
