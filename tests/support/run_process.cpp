#include "support/run_process.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/common/process/child_process.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <actionhost/common/shell_quote.hpp>

extern char **environ;

namespace actionhost::testing {

std::string sh_word(const std::string &text) { return common::shell_word(text); }

ProcessResult run_process(const std::vector<std::string> &argv, double timeout_s, const std::vector<std::string> &extra_env) {
    common::SpawnSpec spec;
    spec.argv = argv;
    spec.env.emplace();
    // extra_env replaces what the test's environment has of the same name: with both in the block, getenv
    // finds the first (the test's HOME, not the one given) while a shell keeps the last.
    const auto overridden = [&](std::string_view entry) {
        const std::string_view name = entry.substr(0, entry.find('='));
        for (const auto &e : extra_env)
            if (std::string_view(e).substr(0, e.find('=')) == name) return true;
        return false;
    };
    for (char **e = environ; *e; ++e)
        if (!overridden(*e)) spec.env->push_back(*e);
    spec.env->insert(spec.env->end(), extra_env.begin(), extra_env.end());
    // A bare program name is found on the test's PATH, whatever PATH extra_env gives the command.
    const char *path = std::getenv("PATH");
    spec.search_path = path ? path : "/usr/local/bin:/usr/bin:/bin";
    spec.use_pty = false;
    spec.in = common::Stream::null();
    spec.out = common::Stream::pipe();
    spec.err = common::Stream::to_stdout();
    // A process group of its own in our session: what the command leaves running on purpose (a kept-alive
    // host) is not swept up with it, and a timeout stops the group.
    spec.new_session = false;
    ProcessResult r;
    auto started = common::ChildProcess::spawn(spec);
    if (!started) {
        r.output = "spawn failed: " + started.error().message;
        return r;
    }
    const auto &child = started.value();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[8192];
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            r.timed_out = true;
            child->terminate(std::chrono::milliseconds(0));
            break;
        }
        pollfd p{child->output_fd(), POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
        const ssize_t n = read(child->output_fd(), buf, sizeof buf);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (n <= 0) break;
        r.output.append(buf, static_cast<size_t>(n));
    }
    // Output ended: the command ends now or soon. One that closed its output and runs on past the time
    // left (at least 5 s) is stopped and counts as timed out.
    const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()),
                               std::chrono::milliseconds(5000));
    auto status = child->wait(left);
    if (!status) {
        r.timed_out = true;
        child->terminate(std::chrono::milliseconds(0));
        return r;
    }
    if (!r.timed_out && status->wait_status && WIFEXITED(*status->wait_status)) r.exit_code = WEXITSTATUS(*status->wait_status);
    return r;
}

}  // namespace actionhost::testing
