#include "static_command.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <vector>

#include "messages.hpp"

namespace actionhost::bash {

namespace {

using Clock = std::chrono::steady_clock;

std::string env_value(const std::vector<std::string> &env, const std::string &key) {
    for (const auto &kv : env)
        if (kv.size() > key.size() && kv.compare(0, key.size(), key) == 0 && kv[key.size()] == '=')
            return kv.substr(key.size() + 1);
    return "";
}

}  // namespace

std::string short_hostname() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    std::string h(buf);
    const size_t dot = h.find('.');
    return dot == std::string::npos ? h : h.substr(0, dot);  // as bash's \h
}

ChildOutcome collect_child(common::ChildProcess &child, const ChildLimits &limits, const StaticContext &ctx, const EmitFn &emit) {
    const SessionConfig &cfg = *ctx.config;
    OutputNormalizer normalizer;
    Utf8Chunker emit_utf8;
    ObservationText text(limits.hidden ? 4'000'000 : 30000);
    std::vector<char> buf(1 << 16);
    const auto start = Clock::now();
    auto last_output = start;
    const auto never = Clock::time_point::max();
    const auto hard_deadline =
        limits.hard_s ? start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*limits.hard_s))
                      : never;
    const auto soft = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.no_change_timeout_s));
    pollfd fds[3] = {{child.output_fd(), POLLIN, 0}, {ctx.wake_fd, POLLIN, 0}, {child.pidfd(), POLLIN, 0}};
    const nfds_t nfds = child.pidfd() >= 0 ? 3 : 2;
    bool eof = false, exited = false;
    ChildOutcome out;
    auto consume = [&](std::string_view raw) {
        last_output = Clock::now();
        if (emit) {
            std::string chunk;
            emit_utf8.feed(raw, chunk);
            if (!chunk.empty()) emit(chunk);
        }
        text.append(normalizer.feed(raw));
    };
    while (!eof && !exited) {
        const auto now = Clock::now();
        const auto soft_deadline = limits.soft ? last_output + soft : never;
        if (now >= soft_deadline) {
            out.kill_suffix = no_change_timeout_suffix(cfg.no_change_timeout_text);
            break;
        }
        if (now >= hard_deadline) {
            out.kill_suffix = limits.hard_suffix(*limits.hard_s);
            break;
        }
        const auto wait = std::min(soft_deadline, hard_deadline) - now;
        const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count() + 1;
        const int r = poll(fds, nfds, static_cast<int>(std::min<long long>(ms, 1 << 30)));
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;
        if (fds[1].revents) {
            out.stopped = true;
            break;
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = read(fds[0].fd, buf.data(), buf.size());
            if (n > 0) consume(std::string_view(buf.data(), static_cast<size_t>(n)));
            else if (n == 0 || (errno != EAGAIN && errno != EINTR)) eof = true;
        }
        if (nfds == 3 && (fds[2].revents & POLLIN)) exited = true;
    }
    // Whatever is already in the pipe belongs to the command.
    for (int i = 0; i < 64; ++i) {
        const ssize_t n = read(fds[0].fd, buf.data(), buf.size());
        if (n <= 0) break;
        consume(std::string_view(buf.data(), static_cast<size_t>(n)));
    }
    text.append(normalizer.flush());
    if (emit) {
        std::string chunk;
        emit_utf8.flush(chunk);
        if (!chunk.empty()) emit(chunk);
    }
    child.kill_session();  // the fresh shell is discarded with whatever it left behind
    if (out.kill_suffix.empty() && !out.stopped) {
        for (int i = 0; i < 2000 && !child.try_reap(&out.exit_code); ++i) usleep(1000);
    }
    if (!out.kill_suffix.empty()) out.exit_code = -1;
    const bool truncate = !(limits.hidden && out.kill_suffix.empty());
    out.content = text.finish("", truncate);
    return out;
}

std::string run_static_command(const RunRequest &rq, const StaticContext &ctx, const EmitFn &emit) {
    const SessionConfig &cfg = *ctx.config;
    std::string command = rq.command;
    const size_t b = command.find_first_not_of(" \t\n\r\f\v");
    command = b == std::string::npos ? "" : command.substr(b, command.find_last_not_of(" \t\n\r\f\v") - b + 1);

    std::filesystem::path dir = rq.cwd ? std::filesystem::path(*rq.cwd) : std::filesystem::path(cfg.working_dir);
    if (dir.is_relative()) dir = std::filesystem::path(cfg.working_dir) / dir;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return error_observation_json("ERROR: Work dir " + dir.string() + " does not exist.");

    common::SpawnSpec spec;
    spec.program = cfg.bash_path;
    spec.argv = {"bash", "-c", command};
    spec.identity = cfg.identity.get();
    spec.working_dir = dir.string();
    spec.use_pty = false;
    auto started = common::ChildProcess::spawn(spec);
    if (!started) return error_observation_json("ERROR: " + started.error().message);
    const std::unique_ptr<common::ChildProcess> &child = started.value();

    const ChildOutcome done = collect_child(*child, {!rq.blocking, rq.timeout, hard_timeout_suffix, rq.hidden}, ctx, emit);
    if (done.stopped) return error_observation_json("ERROR: The bash plugin is shutting down.");

    RunMetadata m;
    m.exit_code = done.exit_code;
    m.username = cfg.identity->username;
    m.hostname = short_hostname();
    m.working_dir = dir.string();
    m.py_interpreter_path = common::find_on_path("python", env_value(cfg.identity->env, "PATH"));
    m.suffix = done.kill_suffix.empty() ? completed_suffix(done.exit_code) : done.kill_suffix;
    return run_observation_json(command, done.content, m, rq.hidden);
}

}  // namespace actionhost::bash
