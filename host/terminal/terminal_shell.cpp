#include "terminal/terminal_shell.hpp"

#include <actionhost/common/process/shell_identity.hpp>

#include <algorithm>
#include <mutex>

namespace actionhost::host {

decltype(TerminalSettings::spawn) terminal_shell_spawner(const std::string &username, const std::string &working_dir) {
    struct Resolved {
        std::once_flag once;
        common::ShellIdentity identity;
        std::string bash;
    };
    auto resolved = std::make_shared<Resolved>();
    return [resolved, username, working_dir](unsigned short rows, unsigned short cols, std::string *error) {
        std::call_once(resolved->once, [&] {
            resolved->identity = common::resolve_shell_identity(username);
            auto &env = resolved->identity.env;
            env.erase(std::remove_if(env.begin(), env.end(), [](const std::string &e) { return e.rfind("TERM=", 0) == 0; }), env.end());
            env.push_back("TERM=xterm-256color");
            std::string path = "/usr/local/bin:/usr/bin:/bin";
            for (const auto &e : env)
                if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
            resolved->bash = common::find_on_path("bash", path);
            if (resolved->bash.empty()) resolved->bash = "/bin/bash";
        });
        common::SpawnSpec spec;
        spec.program = resolved->bash;
        spec.argv = resolved->identity.login_profile ? std::vector<std::string>{"bash", "-l", "-i"} : std::vector<std::string>{"bash", "-i"};
        spec.identity = &resolved->identity;
        spec.working_dir = working_dir;
        spec.use_pty = true;
        spec.human_terminal = true;
        spec.rows = rows;
        spec.cols = cols;
        return common::ChildProcess::spawn(spec, error);
    };
}

}  // namespace actionhost::host
