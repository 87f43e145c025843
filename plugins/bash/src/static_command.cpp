#include "static_command.hpp"

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <actionhost/common/io/borrowed_descriptor.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <vector>

#include "messages.hpp"

namespace actionhost::bash {

namespace {

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

namespace {

// The wait of collect_child on one event loop: the child's output, the plugin's shutdown, the child's exit
// (its pidfd) and the no-change and hard timeouts. Whichever ends the wait stops the loop.
class OutputWait {
  public:
    OutputWait(common::ChildProcess &child, const ChildLimits &limits, const StaticContext &ctx,
               std::function<void(std::string_view)> consume)
        : limits_(limits), cfg_(*ctx.config), consume_(std::move(consume)), output_(io_, child.output_fd()),
          shutdown_(io_, ctx.wake_fd), exit_(io_, child.pidfd()), limit_(io_) {
        if (limits.hard_s)
            hard_deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*limits.hard_s));
    }

    // Returns once the output ended, the child exited, the plugin shuts down or a timeout struck, with
    // what the pipe held by then consumed too.
    void run(ChildOutcome &out) {
        out_ = &out;
        read();
        if (shutdown_.is_open()) shutdown_.async_wait(Descriptor::wait_read, [this](const boost::system::error_code &ec) {
            if (ec) return;
            out_->stopped = true;
            io_.stop();
        });
        if (exit_.is_open()) exit_.async_wait(Descriptor::wait_read, [this](const boost::system::error_code &ec) {
            if (!ec) io_.stop();
        });
        check_limits();
        io_.run();
        // Whatever is already in the pipe belongs to the command.
        for (int i = 0; i < 64; ++i) {
            const ssize_t n = ::read(output_.native_handle(), buf_.data(), buf_.size());
            if (n <= 0) break;
            consume_(std::string_view(buf_.data(), static_cast<size_t>(n)));
        }
    }

  private:
    using Clock = std::chrono::steady_clock;
    using Descriptor = boost::asio::posix::stream_descriptor;

    void read() {
        output_.async_read_some(boost::asio::buffer(buf_), [this](const boost::system::error_code &ec, size_t n) {
            if (ec) return io_.stop();  // end of file, or the pipe failed: the command's output is complete
            last_output_ = Clock::now();
            consume_(std::string_view(buf_.data(), n));
            read();
        });
    }

    // The no-change timeout counts from the last output: when the timer strikes, output since may have
    // moved it, so the limits are looked at again and the timer set for the nearer one.
    void check_limits() {
        const auto now = Clock::now();
        const auto never = Clock::time_point::max();
        const auto soft_deadline =
            limits_.soft ? last_output_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg_.no_change_timeout_s))
                         : never;
        if (now >= soft_deadline) {
            out_->kill_suffix = no_change_timeout_suffix(cfg_.no_change_timeout_text);
            return io_.stop();
        }
        if (now >= hard_deadline_) {
            out_->kill_suffix = limits_.hard_suffix(*limits_.hard_s);
            return io_.stop();
        }
        const auto next = std::min(soft_deadline, hard_deadline_);
        if (next == never) return;
        limit_.expires_at(next);
        limit_.async_wait([this](const boost::system::error_code &ec) {
            if (!ec) check_limits();
        });
    }

    const ChildLimits &limits_;
    const SessionConfig &cfg_;
    std::function<void(std::string_view)> consume_;
    const Clock::time_point start_ = Clock::now();
    Clock::time_point last_output_ = start_;
    Clock::time_point hard_deadline_ = Clock::time_point::max();
    ChildOutcome *out_ = nullptr;
    boost::asio::io_context io_{1};
    common::io::BorrowedDescriptor output_, shutdown_, exit_;
    boost::asio::steady_timer limit_;
    std::array<char, 1 << 16> buf_;
};

}  // namespace

ChildOutcome collect_child(common::ChildProcess &child, const ChildLimits &limits, const StaticContext &ctx, const EmitFn &emit) {
    OutputNormalizer normalizer;
    Utf8Chunker emit_utf8;
    ObservationText text(limits.hidden ? 4'000'000 : 30000);
    ChildOutcome out;
    auto consume = [&](std::string_view raw) {
        if (emit) {
            std::string chunk;
            emit_utf8.feed(raw, chunk);
            if (!chunk.empty()) emit(chunk);
        }
        text.append(normalizer.feed(raw));
    };
    OutputWait(child, limits, ctx, consume).run(out);
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
    m.py_interpreter_path = common::find_on_path("python", env_value(cfg.identity->env, "PATH"), {m.working_dir.value_or(""), cfg.identity.get()});
    m.suffix = done.kill_suffix.empty() ? completed_suffix(done.exit_code) : done.kill_suffix;
    return run_observation_json(command, done.content, m, rq.hidden);
}

}  // namespace actionhost::bash
