#include "actionhost/lifetime/keeper_program.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <actionhost/runtime_support/process.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "actionhost/lifetime/json_line_socket.hpp"
#include "actionhost/lifetime/lifetime_keeper.hpp"
#include "actionhost/lifetime/lifetime_requests.hpp"

namespace actionhost::lifetime {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr auto kWatchTick = std::chrono::seconds(1);  // how soon a runtime gone by other means is noticed

// stdin from /dev/null; stdout and stderr to `log` (appended) or /dev/null: the backend's pipe is let
// go once "ready" is said, so the backend reads to its end.
void detach_streams(const std::string &log) {
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    const int out_fd = log.empty() ? -1 : ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    const int target = out_fd >= 0 ? out_fd : null_fd;
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    if (target >= 0) {
        ::dup2(target, STDOUT_FILENO);
        ::dup2(target, STDERR_FILENO);
    }
    if (out_fd >= 0) ::close(out_fd);
    if (null_fd >= 0) ::close(null_fd);
}

void remove_file(const std::string &path) {
    if (!path.empty()) ::unlink(path.c_str());
}

}  // namespace

int run_keeper_program(int argc, char **argv, const KeeperProgram &program) {
    LifetimePlan plan;
    std::string socket_path, record_path, log_path;
    std::vector<std::string> expiry_removes;
    bool foreground = false;
    CLI::App app{program.description, program.name};
    app.add_option("--lifetime", plan.lifetime_s, "seconds after which the runtime ends by itself (0: never)")
        ->check(CLI::Range(0L, kMaxLifetimeSeconds));
    app.add_option("--idle-timeout", plan.idle_timeout_s, "seconds without a connection after which --idle-action applies (0: never)")
        ->check(CLI::Range(0L, kMaxLifetimeSeconds));
    app.add_option("--idle-action", plan.idle_action, "pause (the next connection resumes it) or stop")->check(CLI::IsMember({"pause", "stop"}));
    app.add_option("--control-socket", socket_path, "the unix socket to serve the lifetime requests on")->required();
    app.add_option("--record", record_path, "where to record this keeper (pid, start, socket)")->required();
    app.add_option("--log", log_path, "where its messages go once detached (default: nowhere)");
    app.add_option("--expiry-remove", expiry_removes, "a record the runtime's end by this keeper removes (repeatable)");
    app.add_flag("--foreground", foreground, "do not detach (a debugger's)");
    if (program.add_options) program.add_options(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    if (!plan.any()) {
        std::fprintf(stderr, "%s: nothing to keep: give --lifetime or --idle-timeout\n", program.name.c_str());
        return 2;
    }
    // Named from anywhere: the keeper leaves the client's working directory (it may be removed, or a
    // mount it would pin) once detached.
    for (std::string *path : {&socket_path, &record_path, &log_path})
        if (!path->empty()) *path = std::filesystem::absolute(*path).string();
    for (auto &path : expiry_removes) path = std::filesystem::absolute(path).string();

    if (!foreground) {
        const pid_t child = ::fork();
        if (child < 0) {
            std::printf("error: cannot fork: %s\n", std::strerror(errno));
            return 1;
        }
        if (child > 0) return 0;  // the backend reaps this parent at once; the keeper lives on
        ::setsid();
        if (::chdir("/") != 0) std::fprintf(stderr, "%s: cannot leave the working directory\n", program.name.c_str());
    }
    ::signal(SIGPIPE, SIG_IGN);
    asio::io_context io;
    // Caught from here on: a stop asked while the keeper sets itself up waits until it can be done.
    asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);

    std::unique_ptr<KeeperTarget> target;
    int listen_fd = -1;
    try {
        target = program.make_target();
        target->prepare(plan);
        listen_fd = listen_unix_socket(socket_path);
        const auto me = runtime_support::identify_process(::getpid());
        if (!me) throw std::runtime_error("cannot read its own /proc entry");
        runtime_support::save_kept_alive_record(
            record_path, json{{"pid", me->pid}, {"pid_start", me->start_ticks}, {"boot_id", me->boot_id}, {"socket", socket_path}});
    } catch (const std::exception &e) {
        if (listen_fd >= 0) {
            ::close(listen_fd);
            remove_file(socket_path);
        }
        if (target) target->release();
        std::printf("error: %s\n", e.what());
        return 1;
    }
    std::printf("ready %d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    if (!foreground) detach_streams(log_path);

    bool done = false;
    auto finish = [&] {
        if (done) return;
        done = true;
        remove_file(socket_path);
        remove_file(record_path);
        io.stop();
    };
    SandboxControls controls;
    controls.end = [&](const std::string &) {
        // The records first: once they are gone, no client attaches to a runtime that is being removed.
        for (const auto &path : expiry_removes) remove_file(path);
        try {
            target->end();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: the runtime could not be ended: %s\n", program.name.c_str(), e.what());
        }
        finish();
    };
    controls.freeze = [&] { return target->freeze(); };
    controls.thaw = [&] { return target->thaw(); };
    controls.frozen = [&] { return target->frozen(); };
    controls.connections = [&] { return target->connections(); };
    LifetimeSettings settings;
    settings.lifetime_s = plan.lifetime_s;
    settings.idle_timeout_s = plan.idle_timeout_s;
    settings.idle_action = plan.idle_action;
    settings.paused_tick = target->paused_tick();
    settings.log_name = program.name;
    LifetimeKeeper keeper(io, settings, std::move(controls));

    JsonLineServer server(io, listen_fd, [&](const json &request) {
        if (auto answer = answer_lifetime_request(&keeper, request)) return *answer;
        throw std::invalid_argument("unknown request (lifetime, extend)");
    });

    // Told to go, or the runtime went: what was paused is thawed and the runtime left as it is.
    auto leave = [&](const char *why) {
        if (done) return;
        std::fprintf(stderr, "%s: %s; the keeper goes, the runtime is left as it is\n", program.name.c_str(), why);
        keeper.give_back();
        target->release();
        finish();
    };
    signals.async_wait([&](const boost::system::error_code &ec, int) {
        if (!ec) leave("told to stop");
    });
    asio::steady_timer watch(io);
    std::function<void()> look = [&] {
        watch.expires_after(kWatchTick);
        watch.async_wait([&](const boost::system::error_code &ec) {
            if (ec || done) return;
            bool gone = false;
            try {
                gone = target->gone();
            } catch (const std::exception &) {  // cannot tell now (its engine restarting): the next look will
            }
            if (gone) return leave("the runtime is gone");
            look();
        });
    };
    look();
    for (int i = 0; i < 1'000'000 && !done; ++i) {  // run() returns only once finish() stopped the loop
        try {
            io.run();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: %s\n", program.name.c_str(), e.what());
            io.restart();
        }
    }
    return 0;
}

}  // namespace actionhost::lifetime
