// /openhands/micromamba/bin/micromamba in an image made from the bundle, so the image answers the
// command OpenHands' own runtimes start a runtime image with (DockerRuntime, RemoteRuntime, Kubernetes,
// the cloud sandboxes):
//   /openhands/micromamba/bin/micromamba run -n openhands poetry run python -u
//       -m openhands.runtime.action_execution_server PORT --working-dir ... --plugins ... --username ... --user-id ...
// and what Runloop runs before it:
//   micromamba run -n openhands poetry config virtualenvs.path /openhands/poetry
// The server becomes `actionhost PORT ARGS...` (the same command line: actionhost takes OpenHands'
// arguments), exec'd in place so the container's main process is the host itself; `poetry config` has
// nothing to configure; any other `run [-n ENV] CMD...` runs CMD as it is, as micromamba would.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

const char *kServerModule = "openhands.runtime.action_execution_server";

int usage(const char *why) {
    std::fprintf(stderr,
                 "micromamba (actionhost's OpenHands shim): %s\n"
                 "  supported: micromamba run [-n ENV] poetry run python [-u] -m %s PORT [ARGS...]\n"
                 "             micromamba run [-n ENV] poetry config ...   (nothing to do)\n"
                 "             micromamba run [-n ENV] COMMAND [ARGS...]\n",
                 why, kServerModule);
    return 2;
}

[[noreturn]] void exec_or_die(const std::string &program, const std::vector<std::string> &args, bool search_path) {
    std::vector<char *> argv;
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    if (search_path) execvp(program.c_str(), argv.data());
    else execv(program.c_str(), argv.data());
    std::fprintf(stderr, "micromamba (actionhost's OpenHands shim): cannot run %s: %s\n", program.c_str(), std::strerror(errno));
    _exit(127);
}

// The host of this bundle: <bundle>/bin/actionhost, this program being <bundle>/libexec/openhands-shim.
std::string host_path() {
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return "/openhands/actionhost/bin/actionhost";
    return (self.parent_path().parent_path() / "bin" / "actionhost").string();
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] != "run") return usage("only `run` is supported");
    size_t i = 1;
    // micromamba run's own options, up to the command (the environment is always the bundle's).
    for (; i < args.size() && args[i].size() > 1 && args[i][0] == '-'; ++i) {
        const std::string &o = args[i];
        if (o == "--") {
            ++i;
            break;
        }
        if (o == "-n" || o == "--name" || o == "-p" || o == "--prefix" || o == "-r" || o == "--root-prefix" ||
            o == "-a" || o == "--attach" || o == "--cwd" || o == "--env" || o == "-e" || o == "--label")
            ++i;  // takes a value
    }
    std::vector<std::string> cmd(args.begin() + static_cast<long>(std::min(i, args.size())), args.end());
    if (cmd.empty()) return usage("no command after `run`");
    if (cmd.size() >= 2 && cmd[0] == "poetry" && cmd[1] == "config") return 0;
    if (cmd.size() >= 2 && cmd[0] == "poetry" && cmd[1] == "run") cmd.erase(cmd.begin(), cmd.begin() + 2);
    if (cmd.empty()) return usage("no command after `poetry run`");
    const std::string prog = std::filesystem::path(cmd[0]).filename().string();
    if (prog.rfind("python", 0) == 0) {
        for (size_t k = 1; k + 1 < cmd.size(); ++k) {
            if (cmd[k] == "-m" && cmd[k + 1] == kServerModule) {
                std::vector<std::string> host = {"actionhost"};
                host.insert(host.end(), cmd.begin() + static_cast<long>(k + 2), cmd.end());
                exec_or_die(host_path(), host, false);
            }
            if (cmd[k] == "-m" || cmd[k] == "-c") break;  // another module or program: run python as asked
        }
    }
    exec_or_die(cmd[0], cmd, true);
}
