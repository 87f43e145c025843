#include "launch_plan.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace actionhost::vscode {
namespace {

bool executable(const std::string &path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0 && !std::filesystem::is_directory(path); }

std::optional<std::string> on_path(const std::string &name, const ConfigLookup &config) {
    auto path = config("PATH");
    if (!path) return std::nullopt;
    std::stringstream ss(*path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
        if (dir.empty()) continue;
        std::string candidate = dir + "/" + name;
        if (executable(candidate)) return candidate;
    }
    return std::nullopt;
}

}  // namespace

std::optional<ServerBinary> find_server(const ConfigLookup &config, std::vector<std::string> &tried) {
    auto check = [&](ServerKind kind, const std::string &path) -> std::optional<ServerBinary> {
        tried.push_back(path);
        if (executable(path)) return ServerBinary{kind, path};
        return std::nullopt;
    };
    auto openvscode = config("ACTIONHOST_OPENVSCODE_SERVER_PATH");
    auto code_server = config("ACTIONHOST_CODE_SERVER_PATH");
    const bool explicit_only = (openvscode && !openvscode->empty()) || (code_server && !code_server->empty());
    if (openvscode && !openvscode->empty()) {
        std::string path = std::filesystem::is_directory(*openvscode) ? *openvscode + "/bin/openvscode-server" : *openvscode;
        if (auto s = check(ServerKind::OpenVSCodeServer, path)) return s;
    }
    if (code_server && !code_server->empty()) {
        if (auto s = check(ServerKind::CodeServer, *code_server)) return s;
    }
    // A path that was configured is the only one looked at: a missing server is then reported as missing
    // instead of being replaced by another one found by chance.
    if (explicit_only) return std::nullopt;
    if (auto s = check(ServerKind::OpenVSCodeServer, "/openhands/.openvscode-server/bin/openvscode-server")) return s;
    if (auto p = config("ACTIONHOST_CODE_SERVER_PREFIX"); p && !p->empty()) {
        if (auto s = check(ServerKind::CodeServer, *p + "/bin/code-server")) return s;
    }
    if (auto s = check(ServerKind::CodeServer, "/opt/actionhost/code-server/bin/code-server")) return s;
    // Where scripts/install-code-server puts it for a user who cannot write /opt.
    if (auto cache = config("XDG_CACHE_HOME"); cache && !cache->empty()) {
        if (auto s = check(ServerKind::CodeServer, *cache + "/actionhost/code-server/bin/code-server")) return s;
    } else if (auto home = config("HOME"); home && !home->empty()) {
        if (auto s = check(ServerKind::CodeServer, *home + "/.cache/actionhost/code-server/bin/code-server")) return s;
    }
    tried.push_back("code-server on PATH");
    if (auto p = on_path("code-server", config)) return ServerBinary{ServerKind::CodeServer, *p};
    return std::nullopt;
}

std::string server_base_path(const ConfigLookup &config) {
    if (auto explicit_base = config("OPENVSCODE_SERVER_BASE_PATH"); explicit_base && !explicit_base->empty()) {
        std::string b = (*explicit_base)[0] == '/' ? *explicit_base : "/" + *explicit_base;
        while (b.size() > 1 && b.back() == '/') b.pop_back();
        return b == "/" ? "" : b;
    }
    auto url = config("RUNTIME_URL");
    auto id = config("RUNTIME_ID");
    if (!url || !id || url->empty() || id->empty()) return "";
    // The path of scheme://authority/path...
    std::string path = "/";
    auto scheme = url->find("://");
    auto start = url->find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (start != std::string::npos) path = url->substr(start);
    if (path.rfind("/" + *id, 0) == 0) return "/" + *id + "/vscode";
    return "";
}

CodeServerPaths code_server_paths(const std::string &run_dir) {
    return {run_dir + "/code-server.sock", run_dir + "/session.sock", run_dir + "/runtime", run_dir + "/code-server.yaml"};
}

std::vector<std::string> server_argv(const ServerArgs &a) {
    std::vector<std::string> argv{a.server->path};
    if (a.server->kind == ServerKind::OpenVSCodeServer) {
        // OpenHands' command line.
        argv.insert(argv.end(), {"--host", "0.0.0.0", "--connection-token", a.token, "--port",
                                 std::to_string(a.public_port), "--disable-workspace-trust"});
        if (!a.base_path.empty()) argv.insert(argv.end(), {"--server-base-path", a.base_path});
        return argv;
    }
    // code-server: no auth of its own (the token proxy in front of it does that), so no TCP port either:
    // it listens only on a socket in the private run directory (--socket makes it ignore --bind-addr and
    // $PORT), and its session socket goes there too instead of the shared user-data directory.
    const CodeServerPaths paths = code_server_paths(a.run_dir);
    argv.insert(argv.end(), {"--socket", paths.socket, "--socket-mode", "600", "--session-socket", paths.session_socket,
                             "--auth", "none", "--disable-workspace-trust", "--disable-telemetry",
                             "--disable-update-check", "--disable-getting-started-override", "--ignore-last-opened",
                             "--config", paths.config, a.workspace});
    return argv;
}

std::vector<std::string> server_env(char **host_environ, bool switch_user, const std::string &user,
                                    const std::string &home, const std::string &runtime_dir) {
    std::vector<std::string> env;
    for (char **e = host_environ; e && *e; ++e) {
        std::string kv = *e;
        std::string key = kv.substr(0, kv.find('='));
        if (key == "SESSION_API_KEY" || key == "PORT" || key == "PASSWORD" || key == "HASHED_PASSWORD" ||
            key.rfind("VSCODE_", 0) == 0 || key.rfind("CODE_SERVER_", 0) == 0) {
            continue;
        }
        if (switch_user && (key == "HOME" || key == "USER" || key == "LOGNAME" || key.rfind("XDG_", 0) == 0)) continue;
        if (!runtime_dir.empty() && key == "XDG_RUNTIME_DIR") continue;
        env.push_back(std::move(kv));
    }
    if (switch_user) {
        env.push_back("HOME=" + home);
        env.push_back("USER=" + user);
        env.push_back("LOGNAME=" + user);
    }
    if (!runtime_dir.empty()) env.push_back("XDG_RUNTIME_DIR=" + runtime_dir);
    return env;
}

}  // namespace actionhost::vscode
