#include "stdio_server.hpp"

#include <poll.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <actionhost/abi.h>
#include <actionhost/common/io/borrowed_descriptor.hpp>
#include <actionhost/common/json_io.hpp>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <thread>

#include <actionhost/common/process/child_process.hpp>

namespace actionhost::mcp {
namespace {

constexpr size_t kMaxLineBytes = 64u << 20;   // one JSON-RPC message from a child
constexpr size_t kStderrTailBytes = 2048;     // kept for error messages
constexpr const char *kProtocolVersion = "2025-03-26";
// How long a server has to act on end-of-file on its stdin (the MCP stdio shutdown), then on SIGTERM.
constexpr std::chrono::milliseconds kStopGrace{1500};

// In a process group of its own with pipes on stdin, stdout and stderr, so that stopping it stops what
// it started too (npx → node, uvx → python, ...). A bare command is looked up on the PATH of `env`.
common::Result<std::unique_ptr<common::ChildProcess>> spawn_server(const std::vector<std::string> &argv,
                                                                   const std::vector<std::string> &env, const std::string &cwd) {
    common::SpawnSpec spec;
    spec.argv = argv;
    spec.env = env;
    spec.working_dir = cwd;
    spec.use_pty = false;
    spec.in = common::Stream::pipe();
    spec.out = common::Stream::pipe();
    spec.err = common::Stream::pipe();
    // No die_with_parent: PR_SET_PDEATHSIG would follow the short-lived thread that starts the server;
    // the plugin stops its children at shutdown instead.
    spec.new_session = false;
    return common::ChildProcess::spawn(spec);
}

}  // namespace

// One running child: its process, the thread running the event loop of its output (stdout's messages,
// stderr's tail; expiring nothing: waiters time out themselves), and the requests waiting for an answer.
struct StdioServer::Instance {
    struct Pending {
        std::mutex mu;
        std::condition_variable cv;
        std::optional<RpcOutcome> outcome;
        void complete(RpcOutcome o) {
            std::lock_guard lock(mu);
            if (!outcome) outcome = std::move(o);
            cv.notify_all();
        }
    };

    // The child's stdout, stderr and pidfd on one Boost.Asio event loop, run by `reader`.
    struct Loop {
        explicit Loop(common::ChildProcess &c) : out(io, c.output_fd()), err(io, c.stderr_fd()), exit(io, c.pidfd()), timer(io) {}
        boost::asio::io_context io{1};
        common::io::BorrowedDescriptor out, err, exit;
        boost::asio::steady_timer timer;  // the wait for the exit once stdout closed, then for its last words
        std::string line;                 // stdout's unfinished line
        std::array<char, 65536> out_chunk;
        std::array<char, 4096> err_chunk;
        // Once stdout closed while the child was not being stopped: the wait for its exit (await_exit).
        bool output_closed = false;
        bool exit_watched = false;  // the pidfd's wait is started
        bool settling = false;      // the exit is in (or the deadline passed): its last words are awaited
        std::chrono::steady_clock::time_point exit_deadline;
        std::optional<common::ExitStatus> status;  // as found when settling began
    };

    std::string name;
    StdioServerSettings *settings = nullptr;
    std::unique_ptr<common::ChildProcess> child;
    std::unique_ptr<Loop> loop;  // after `child`: gone before the descriptors it borrows
    std::thread reader;
    std::atomic<bool> stopping{false};
    std::atomic<bool> alive{true};
    bool initialized = false;
    std::mutex write_mu;
    std::mutex mu;  // pending, next_id, stderr_tail, death
    std::map<int64_t, std::shared_ptr<Pending>> pending;
    int64_t next_id = 1;
    std::string stderr_tail;
    std::string death;  // why the child is gone

    ~Instance() { stop(); }

    void log(int level, const std::string &msg) const {
        if (settings->log) settings->log(level, "MCP server '" + name + "': " + msg);
    }

    // Writes one message line; false when the child no longer reads (stdin closed, or full for 10 s).
    bool write_line(const nlohmann::json &msg) {
        std::string line = common::dump_json(msg) + "\n";
        std::lock_guard lock(write_mu);
        const int fd = child ? child->stdin_fd() : -1;
        if (fd < 0) return false;
        size_t off = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (off < line.size()) {
            pollfd p{fd, POLLOUT, 0};
            const int wait = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  deadline - std::chrono::steady_clock::now()).count());
            if (wait <= 0) return false;
            const int r = ::poll(&p, 1, wait);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return false;
            const ssize_t n = ::write(fd, line.data() + off, line.size() - off);
            if (n < 0) {
                if (errno == EINTR || errno == EAGAIN) continue;
                return false;
            }
            off += static_cast<size_t>(n);
        }
        return true;
    }

    RpcOutcome request(const std::string &method, const nlohmann::json &params, std::chrono::milliseconds timeout) {
        auto p = std::make_shared<Pending>();
        int64_t id;
        {
            std::lock_guard lock(mu);
            if (!alive) return RpcOutcome::failure(-32603, gone_text());
            id = next_id++;
            pending[id] = p;
        }
        nlohmann::json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
        if (!params.is_null()) msg["params"] = params;
        if (!write_line(msg)) {
            forget(id);
            std::lock_guard lock(mu);
            return RpcOutcome::failure(-32603, "MCP server '" + name + "' does not read its input (" + gone_text() + ")");
        }
        std::unique_lock lock(p->mu);
        if (!p->cv.wait_for(lock, timeout, [&] { return p->outcome.has_value(); })) {
            lock.unlock();
            forget(id);
            write_line({{"jsonrpc", "2.0"},
                        {"method", "notifications/cancelled"},
                        {"params", {{"requestId", id}, {"reason", "timed out"}}}});
            return RpcOutcome::failure(-32603, "MCP server '" + name + "' did not answer " + method + " within " +
                                                   std::to_string(timeout.count() / 1000) + " s");
        }
        return std::move(*p->outcome);
    }

    void notify(const std::string &method) { write_line({{"jsonrpc", "2.0"}, {"method", method}}); }

    void forget(int64_t id) {
        std::lock_guard lock(mu);
        pending.erase(id);
    }

    std::string gone_text() const {  // with `mu` held
        return death.empty() ? "it has exited" : death;
    }

    void on_message(const nlohmann::json &msg) {
        if (!msg.is_object()) return log(AH_LOG_WARNING, "sent a message that is not a JSON object");
        const bool has_id = msg.contains("id") && !msg["id"].is_null();
        if (msg.contains("method") && msg["method"].is_string()) {
            const std::string method = msg["method"].get<std::string>();
            if (!has_id) {
                if (method == "notifications/tools/list_changed" && settings->on_tools_changed) settings->on_tools_changed();
                return;
            }
            // A request from the server to us: we offer no client capabilities beyond ping.
            if (method == "ping") write_line({{"jsonrpc", "2.0"}, {"id", msg["id"]}, {"result", nlohmann::json::object()}});
            else
                write_line({{"jsonrpc", "2.0"},
                            {"id", msg["id"]},
                            {"error", {{"code", -32601}, {"message", "Method not found: " + method}}}});
            return;
        }
        if (!has_id || !msg["id"].is_number_integer()) return;
        std::shared_ptr<Pending> p;
        {
            std::lock_guard lock(mu);
            auto it = pending.find(msg["id"].get<int64_t>());
            if (it == pending.end()) return;  // answered after we gave up on it
            p = it->second;
            pending.erase(it);
        }
        if (msg.contains("error") && msg["error"].is_object()) {
            p->complete({std::nullopt, msg["error"]});
        } else if (msg.contains("result")) {
            p->complete({msg["result"], nullptr});
        } else {
            p->complete(RpcOutcome::failure(-32603, "MCP server '" + name + "' sent a response without result or error"));
        }
    }

    // The reader thread: both streams until stop(); the end of stdout is the end of the child.
    void run_loop() {
        read_stdout();
        if (loop->err.is_open()) read_stderr();
        loop->io.run();
        if (!alive) return;
        // Stopped while waiting for the exit after stdout closed: the child is gone by now.
        if (loop->output_closed) return died(exit_text(child->wait(std::chrono::milliseconds(2000))));
        died("MCP server '" + name + "' was stopped");
    }

    void read_stdout() {
        loop->out.async_read_some(boost::asio::buffer(loop->out_chunk), [this](const boost::system::error_code &ec, size_t n) {
            if (ec) return output_ended();
            std::string &buffer = loop->line;
            buffer.append(loop->out_chunk.data(), n);
            size_t start = 0, nl;
            while ((nl = buffer.find('\n', start)) != std::string::npos) {
                std::string_view line(buffer.data() + start, nl - start);
                start = nl + 1;
                if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
                if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
                auto parsed = common::parse_json(line);
                if (!parsed) {
                    log(AH_LOG_WARNING, "wrote a line that is not JSON (" + parsed.error().message + "): " +
                                            std::string(line.substr(0, 200)));
                    continue;
                }
                on_message(parsed.value());
            }
            buffer.erase(0, start);
            if (buffer.size() > kMaxLineBytes) {
                log(AH_LOG_ERROR, "wrote a line longer than 64 MiB; stopping it");
                return output_ended();
            }
            read_stdout();
        });
    }

    void read_stderr() {
        loop->err.async_read_some(boost::asio::buffer(loop->err_chunk), [this](const boost::system::error_code &ec, size_t n) {
            if (ec) return;
            {
                std::lock_guard lock(mu);
                stderr_tail.append(loop->err_chunk.data(), n);
                if (stderr_tail.size() > kStderrTailBytes) stderr_tail.erase(0, stderr_tail.size() - kStderrTailBytes);
            }
            read_stderr();
        });
    }

    // The child's stdout closed (it exited, or we stop it): every waiter learns why, once the child's exit
    // (2 s at most) and its last words on stderr (50 ms more: they may still be in flight) are in. Stderr
    // is read on meanwhile.
    void output_ended() {
        if (stopping) return died("MCP server '" + name + "' was stopped");
        loop->output_closed = true;
        loop->exit_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
        await_exit();
    }

    // Called again by whichever wakes first: the pidfd, the deadline (or, without a pidfd, a look every 2 ms).
    void await_exit() {
        if (loop->settling) return;
        const auto now = std::chrono::steady_clock::now();
        if (auto status = child->wait(std::chrono::milliseconds(0)); status || now >= loop->exit_deadline) {
            loop->settling = true;
            loop->status = status;
            loop->timer.expires_after(std::chrono::milliseconds(50));
            loop->timer.async_wait([this](const boost::system::error_code &ec) {
                if (!ec) died(exit_text(loop->status));
            });
            return;
        }
        loop->timer.expires_at(loop->exit.is_open() ? loop->exit_deadline : std::min(loop->exit_deadline, now + std::chrono::milliseconds(2)));
        loop->timer.async_wait([this](const boost::system::error_code &ec) {
            if (!ec) await_exit();
        });
        if (loop->exit.is_open() && !loop->exit_watched) {
            loop->exit_watched = true;
            loop->exit.async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code &ec) {
                if (!ec) await_exit();
            });
        }
    }

    std::string exit_text(const std::optional<common::ExitStatus> &status) {
        std::lock_guard lock(mu);
        std::string tail = stderr_tail;
        while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
        return "MCP server '" + name + "' " + (status ? status->describe() : "closed its output (still running)") +
               (tail.empty() ? "" : ": " + tail.substr(tail.size() > 500 ? tail.size() - 500 : 0));
    }

    void died(const std::string &why) {
        std::map<int64_t, std::shared_ptr<Pending>> waiting;
        {
            std::lock_guard lock(mu);
            death = why;
            alive = false;
            waiting.swap(pending);
        }
        if (!stopping && settings->log) settings->log(AH_LOG_WARNING, why);
        for (auto &[_, p] : waiting) p->complete(RpcOutcome::failure(-32603, why));
    }

    void stop() {
        stopping = true;
        if (child) {
            std::lock_guard lock(write_mu);  // no write is half-way through the pipe being closed
            child->close_stdin();
            child->wait(kStopGrace);
            child->terminate(kStopGrace);
        }
        if (loop) loop->io.stop();
        if (reader.joinable()) reader.join();
        loop.reset();
    }
};

StdioServer::StdioServer(StdioServerConfig config, StdioServerSettings settings)
    : config_(std::move(config)), settings_(std::move(settings)) {}

StdioServer::~StdioServer() { stop(); }

std::shared_ptr<StdioServer::Instance> StdioServer::running() {
    std::lock_guard lock(mu_);
    return current_ && current_->alive && current_->initialized ? current_ : nullptr;
}

common::Status StdioServer::ensure_started(std::chrono::milliseconds timeout) {
    std::lock_guard start_lock(start_mu_);
    if (running()) return common::ok();
    std::shared_ptr<Instance> old;
    {
        std::lock_guard lock(mu_);
        old = std::move(current_);
    }
    old.reset();  // stops and joins a dead predecessor

    std::vector<std::string> argv = {config_.command};
    argv.insert(argv.end(), config_.args.begin(), config_.args.end());
    std::vector<std::string> env = settings_.base_env;
    for (const auto &[k, v] : config_.env) {
        std::erase_if(env, [&](const std::string &e) { return e.rfind(k + "=", 0) == 0; });
        env.push_back(k + "=" + v);
    }
    auto inst = std::make_shared<Instance>();
    inst->name = config_.name;
    inst->settings = &settings_;
    auto child = spawn_server(argv, env, settings_.cwd);
    if (!child) return child.as_failure();
    inst->child = std::move(child).value();
    inst->loop = std::make_unique<Instance::Loop>(*inst->child);
    inst->reader = std::thread([raw = inst.get()] { raw->run_loop(); });

    RpcOutcome init = inst->request("initialize",
                                    {{"protocolVersion", kProtocolVersion},
                                     {"capabilities", nlohmann::json::object()},
                                     {"clientInfo", {{"name", "actionhost"}, {"version", settings_.client_version}}}},
                                    timeout);
    if (!init.result) return common::fail("initialize failed: " + init.error.value("message", actionhost::common::dump_json(init.error)));
    inst->notify("notifications/initialized");
    inst->initialized = true;
    settings_.log(AH_LOG_INFO, "MCP server '" + config_.name + "' started (pid " + std::to_string(inst->child->pid()) +
                                   ", " + init.result->value("serverInfo", nlohmann::json::object()).value("name", "?") + ")");
    std::lock_guard lock(mu_);
    current_ = std::move(inst);
    return common::ok();
}

RpcOutcome StdioServer::request(const std::string &method, const nlohmann::json &params, std::chrono::milliseconds timeout) {
    auto inst = running();
    if (!inst) return RpcOutcome::failure(-32603, "MCP server '" + config_.name + "' is not running");
    return inst->request(method, params, timeout);
}

void StdioServer::stop() {
    std::lock_guard start_lock(start_mu_);
    std::shared_ptr<Instance> old;
    {
        std::lock_guard lock(mu_);
        old = std::move(current_);
    }
    if (old) old->stop();
}

}  // namespace actionhost::mcp
