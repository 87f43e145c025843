#include "terminal/terminal_shell.hpp"

#include <unistd.h>

#include <actionhost/common/process/shell_identity.hpp>

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace actionhost::host {

namespace {

// The user's login shell when it is one a person can type into: not a refusal like nologin or false
// (service accounts such as `nobody` have one), and present in this image. Else `sh` on the PATH.
std::string interactive_shell(const common::ShellIdentity &identity, const std::string &path) {
    const std::string &shell = identity.login_shell;
    const std::string name = std::filesystem::path(shell).filename().string();
    if (!shell.empty() && shell[0] == '/' && name != "nologin" && name != "false" && ::access(shell.c_str(), X_OK) == 0)
        return shell;
    const std::string sh = common::find_on_path("sh", path);
    return sh.empty() ? "/bin/sh" : sh;
}

}  // namespace

decltype(TerminalSettings::spawn) terminal_shell_spawner(const std::string &username, const std::string &working_dir) {
    struct Resolved {
        std::once_flag once;
        common::ShellIdentity identity;
        std::string shell;
    };
    auto resolved = std::make_shared<Resolved>();
    return [resolved, username, working_dir](unsigned short rows, unsigned short cols) {
        std::call_once(resolved->once, [&] {
            resolved->identity = common::resolve_shell_identity(username);
            auto &env = resolved->identity.env;
            env.erase(std::remove_if(env.begin(), env.end(), [](const std::string &e) { return e.rfind("TERM=", 0) == 0; }), env.end());
            env.push_back("TERM=xterm-256color");
            std::string path = "/usr/local/bin:/usr/bin:/bin";
            for (const auto &e : env)
                if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
            resolved->shell = interactive_shell(resolved->identity, path);
        });
        common::SpawnSpec spec;
        spec.program = resolved->shell;
        // A login shell is told so by a '-' before its name (every shell honours it, -l is not POSIX).
        const std::string name = std::filesystem::path(resolved->shell).filename().string();
        spec.argv = {resolved->identity.login_profile ? "-" + name : name, "-i"};
        spec.identity = &resolved->identity;
        spec.working_dir = working_dir;
        spec.use_pty = true;
        spec.human_terminal = true;
        spec.rows = rows;
        spec.cols = cols;
        return common::ChildProcess::spawn(spec);
    };
}

}  // namespace actionhost::host
