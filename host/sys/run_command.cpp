#include "sys/run_command.hpp"

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>

#include "actionhost/common/process/child_process.hpp"

namespace actionhost::host {

int run_command(std::vector<std::string> argv, const CommandOptions &options) {
    common::SpawnSpec spec;
    spec.argv = std::move(argv);
    const char *path = std::getenv("PATH");
    std::string search = path ? path : "";
    for (const auto &dir : options.fallback_dirs) search += (search.empty() ? "" : ":") + dir;
    spec.search_path = search;
    spec.use_pty = false;
    const auto stream = options.quiet ? common::Stream::null() : common::Stream::inherit();
    spec.in = stream;
    spec.out = stream;
    spec.err = options.quiet ? common::Stream::to_stdout() : stream;
    spec.new_session = false;  // a group of its own: a timeout stops what the command started too
    spec.prefer_oom_victim = false;
    auto started = common::ChildProcess::spawn(spec);
    if (!started) return -1;
    const auto &child = started.value();
    const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(options.timeout_s));
    const auto status = child->wait(timeout);
    if (!status) {
        child->terminate(std::chrono::milliseconds(0));
        return -1;
    }
    const auto &ws = status->wait_status;
    return ws && WIFEXITED(*ws) ? WEXITSTATUS(*ws) : -1;
}

}  // namespace actionhost::host
