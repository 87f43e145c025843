// The connection-token guard put in front of code-server, which has no --connection-token of its own.
// It gives code-server (listening with --auth none on a unix socket only its own user may open, see
// upstream_socket.hpp) openvscode-server's token semantics on the public port:
//   - `?tkn=<token>` on a GET sets the cookie `vscode-tkn=<token>` and redirects to the same URL without
//     it (as openvscode-server does);
//   - later requests need that cookie (or a valid `tkn`); anything else is answered 403 "Forbidden.";
//   - authorised requests, WebSocket upgrades included, are relayed to code-server unchanged (the Host
//     and Origin headers pass through, so code-server's own origin check still holds).
#pragma once

#include <actionhost/common/result.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace actionhost::vscode {

inline constexpr const char *kTokenCookie = "vscode-tkn";
inline constexpr const char *kTokenQuery = "tkn";

enum class AuthDecision { Allow, RedirectSettingCookie, Forbid };

struct AuthResult {
    AuthDecision decision = AuthDecision::Forbid;
    std::string location;  // for RedirectSettingCookie: the request URI without the tkn parameter
};

// Decides one request. `uri` is the request target ("/path?query"), `cookie_token` the value of the
// vscode-tkn cookie ("" when absent), `redirectable` whether a redirect can answer it (a plain GET).
AuthResult authorize(const std::string &token, const std::string &uri, const std::string &cookie_token,
                     bool redirectable);

class TokenProxy {
  public:
    using Logger = std::function<void(int level, const std::string &msg)>;
    // `upstream_socket`: the path of code-server's unix socket (the same across its restarts).
    TokenProxy(std::string token, std::string upstream_socket, Logger log);
    ~TokenProxy();
    TokenProxy(const TokenProxy &) = delete;
    TokenProxy &operator=(const TokenProxy &) = delete;

    // Listens on bind_host:port. Fails, saying why, when the port cannot be bound.
    common::Status start(const std::string &bind_host, int port);
    // Stops listening and cuts every relayed connection. Idempotent.
    void stop();

    struct State;

  private:
    std::shared_ptr<State> state_;
};

}  // namespace actionhost::vscode
