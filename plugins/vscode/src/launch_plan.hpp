// Which VS Code server to run and with what arguments. Pure decisions from configuration, no side
// effects, so the null-token cases can be told apart and logged.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::vscode {

enum class ServerKind { OpenVSCodeServer, CodeServer };

struct ServerBinary {
    ServerKind kind;
    std::string path;
};

using ConfigLookup = std::function<std::optional<std::string>(const char *key)>;

// openvscode-server first (OpenHands' choice): $ACTIONHOST_OPENVSCODE_SERVER_PATH (the binary or its
// install directory), then /openhands/.openvscode-server/bin/openvscode-server. Then code-server:
// $ACTIONHOST_CODE_SERVER_PATH, $ACTIONHOST_CODE_SERVER_PREFIX/bin/code-server,
// /opt/actionhost/code-server/bin/code-server (scripts/install-code-server),
// ~/.cache/actionhost/code-server/bin/code-server (its non-root default), `code-server` on PATH. When
// ACTIONHOST_OPENVSCODE_SERVER_PATH or ACTIONHOST_CODE_SERVER_PATH is set, only the configured paths
// are considered. `tried` lists what was looked at.
std::optional<ServerBinary> find_server(const ConfigLookup &config, std::vector<std::string> &tried);

// --server-base-path for openvscode-server: $OPENVSCODE_SERVER_BASE_PATH, else /<RUNTIME_ID>/vscode
// when $RUNTIME_URL's path starts with /<RUNTIME_ID>; "" for none.
std::string server_base_path(const ConfigLookup &config);

// code-server's files in the plugin's private run directory (mode 0700, owned by the user code-server
// runs as): nobody else may open a socket in it, whatever the socket's own mode.
struct CodeServerPaths {
    std::string socket;          // the HTTP socket the token proxy relays to (--socket, mode 0600)
    std::string session_socket;  // code-server's editor-session socket (--session-socket)
    std::string runtime_dir;     // XDG_RUNTIME_DIR: where VS Code puts its IPC sockets (vscode-ipc-*, git)
    std::string config;          // --config: code-server writes a default one when it is missing
};
CodeServerPaths code_server_paths(const std::string &run_dir);

struct ServerArgs {
    const ServerBinary *server;
    std::string token;
    int public_port;
    std::string workspace;
    std::string base_path;
    std::string run_dir;  // private directory for code-server's socket and config file
};

std::vector<std::string> server_argv(const ServerArgs &args);

// The server's environment: the host's, minus what would steer or leak into it (the session API key,
// code-server's PORT/PASSWORD variables, VSCODE_* of an enclosing VS Code), with HOME/USER/LOGNAME set
// for `user` when switching to it, and XDG_RUNTIME_DIR set to `runtime_dir` when it is not empty.
std::vector<std::string> server_env(char **host_environ, bool switch_user, const std::string &user,
                                    const std::string &home, const std::string &runtime_dir = "");

}  // namespace actionhost::vscode
