#include "kernel/kernel_session.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "actionhost/common/random.hpp"
#include "actionhost/common/text.hpp"
#include "actionhost/common/user_entry.hpp"
#include "protocol/connection_info.hpp"

namespace actionhost::jupyter {

namespace {
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kSlice = milliseconds(100);           // how often a waiting loop re-checks the process
constexpr auto kQuietBeforeHeartbeat = std::chrono::seconds(10);
constexpr auto kHeartbeatTimeout = milliseconds(3000);
constexpr int kHeartbeatFailuresForDeath = 2;
constexpr auto kIdleGraceAfterReply = std::chrono::seconds(10);  // iopub silence tolerated after the reply
constexpr size_t kDrainBatch = 256;                  // messages per socket per pass, so no channel starves
constexpr size_t kPartialBudget = 1u << 20;          // bytes of live output forwarded per cell
constexpr int kStartAttempts = 3;                    // a port taken between pick and bind fails a start

// Run in every new kernel before anything else. Besides plain tracebacks (OpenHands' first cell) and the
// interpreter path for the include_extra trailer, it turns off ipykernel's `_execute_sleep`: a 0.5 ms
// time.sleep before every execute_reply, there (a FIXME in kernelbase.py) so that clients which stop
// reading at the reply do not miss output. Output reaches iopub before the reply anyway (ipykernel's
// flush waits for its IOPub thread), and we read iopub up to the idle status that follows the reply,
// so the sleep buys us nothing and cost ~0.5 ms of a 4-5 ms `1+1` round trip. The trait is private
// (ignored on the command line), hence the assignment; kernels without it are left as they are.
constexpr const char *kFirstCell =
    "%colors nocolor\n"
    "try:\n    get_ipython().kernel._execute_sleep = 0\nexcept Exception:\n    pass\n"
    "import sys; print(sys.executable)";

Clock::duration seconds_to_duration(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string trim_tail(const std::string &s) {
    std::string t = s;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\r')) t.pop_back();
    if (t.size() > 2000) t = "..." + t.substr(t.size() - 2000);
    return t;
}
}  // namespace

std::string restart_notice_text(const std::string &reason) {
    return "[IPython kernel restarted: the previous kernel " + reason +
           ". Variables, imports and other state from earlier cells are lost.]";
}

std::string died_mid_cell_text(const std::string &reason) {
    return "[IPython kernel died while running this cell: it " + reason +
           ". A new kernel will be started for the next cell.]";
}

KernelSession::KernelSession(zmq::context_t &ctx, KernelConfig config) : ctx_(ctx), config_(std::move(config)) {}

KernelSession::~KernelSession() { shutdown(); }

void KernelSession::log(LogLevel level, const std::string &msg) const {
    if (config_.log) config_.log(level, msg);
}

void KernelSession::shutdown() {
    stop_ = true;
    channels_.reset();
    if (process_) process_->terminate(1.0);
    process_.reset();
    if (!conn_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(conn_dir_, ec);
        conn_dir_.clear();
    }
}

void KernelSession::discard_kernel(const std::string &reason) {
    channels_.reset();
    if (process_) process_->terminate(0.5);
    process_.reset();
    pending_death_ = reason;
    synced_cwd.clear();
    interpreter_.clear();
}

std::string KernelSession::take_restart_notice() { return std::exchange(restart_notice_, std::string()); }

common::Status KernelSession::ensure_running() {
    if (process_ && channels_ && process_->alive()) return common::ok();
    if (process_) {  // it died since the last cell
        const std::string tail = trim_tail(process_->output_tail());
        const std::string why = process_->alive() ? "stopped answering" : process_->exit_reason();
        log(LogLevel::Warning, "IPython kernel " + why + (tail.empty() ? "" : "; its last output:\n" + tail));
        discard_kernel(why);
    }
    std::string last_error;
    for (int attempt = 1; attempt <= kStartAttempts && !stop_; ++attempt) {
        auto started = start();
        if (started) {
            if (!pending_death_.empty()) {
                restart_notice_ = restart_notice_text(pending_death_);
                pending_death_.clear();
            }
            return common::ok();
        }
        last_error = started.error().message;
        log(LogLevel::Warning, "IPython kernel start attempt " + std::to_string(attempt) + " failed: " + last_error);
    }
    return common::fail(stop_ ? "the host is shutting down" : last_error);
}

common::Status KernelSession::start() {
    const auto t0 = Clock::now();
    channels_.reset();
    process_.reset();
    if (conn_dir_.empty()) {
        std::string tmpl = (std::filesystem::temp_directory_path() / "actionhost-kernel-XXXXXX").string();
        if (mkdtemp(tmpl.data()) == nullptr)
            return common::fail("cannot create a directory for the kernel connection file: " + std::string(std::strerror(errno)),
                                errno);
        conn_dir_ = tmpl;
    }
    const std::string conn_file = conn_dir_ + "/kernel.json";
    ConnectionInfo info;
    try {
        info = make_connection_info();
        write_connection_file(info, conn_file);
    } catch (const std::exception &e) {
        return common::fail(e.what());
    }
    // A kernel running as another user must be able to read its connection file (and nobody else).
    if (geteuid() == 0 && !config_.username.empty()) {
        if (const auto user = common::user_by_name(config_.username); user && user->uid != 0) {
            if (chown(conn_dir_.c_str(), user->uid, user->gid) != 0 || chown(conn_file.c_str(), user->uid, user->gid) != 0)
                log(LogLevel::Warning, "cannot hand the connection file to " + config_.username);
        }
    }

    SpawnOptions so;
    so.argv = expand_kernel_command(config_.command, conn_file);
    so.working_dir = config_.working_dir;
    so.username = config_.username;
    so.extra_env = config_.extra_env;
    // ipykernel exits by itself when this process goes away (its parent poller watches this pid).
    so.extra_env["JPY_PARENT_PID"] = std::to_string(getpid());
    std::string note;
    auto spawned = KernelProcess::spawn(so, note);
    if (!spawned) return spawned.as_failure();
    process_ = std::move(spawned).value();
    if (!note.empty()) log(LogLevel::Warning, note);

    ClientIdentity who{common::random_hex(16), config_.username};
    try {
        channels_ = std::make_unique<KernelChannels>(ctx_, info, who);
    } catch (const std::exception &e) {
        discard_kernel("");
        pending_death_.clear();
        return common::fail(std::string("cannot open the kernel's ZeroMQ channels: ") + e.what());
    }
    if (auto ready = wait_ready(t0 + seconds_to_duration(config_.start_timeout_s)); !ready) {
        std::string error = ready.error().message;
        const std::string tail = process_ ? trim_tail(process_->output_tail()) : "";
        if (!tail.empty()) error += "; kernel output:\n" + tail;
        const std::string keep = pending_death_;
        discard_kernel("");
        pending_death_ = keep;
        return common::fail(error);
    }

    // Plain tracebacks, as OpenHands' first cell does, and the interpreter path for the trailer.
    CellOutput probe;
    CellResult r = execute(kFirstCell, config_.start_timeout_s, probe);
    if (r.status != CellStatus::Completed || r.raised) {
        const std::string keep = pending_death_;
        discard_kernel("");
        pending_death_ = keep;
        return common::fail("the kernel did not run its first cell (" + probe.text() + ")");
    }
    interpreter_ = common::rstrip(probe.text());
    synced_cwd = config_.working_dir;  // a new kernel starts there
    last_start_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
    log(LogLevel::Info, "IPython kernel pid " + std::to_string(process_->pid()) + " ready in " +
                            std::to_string(static_cast<int>(last_start_seconds_ * 1000)) + " ms (" + interpreter_ + ")");
    for (const std::string &cell : config_.init_cells) {
        CellOutput init_out;
        CellResult ir = execute(cell, config_.start_timeout_s, init_out);
        if (ir.status != CellStatus::Completed || ir.raised)
            log(LogLevel::Warning, "kernel start-up cell failed: " + cell + "\n" + init_out.text());
        if (!process_) return common::fail("the kernel died running start-up code");  // reported as a failed start
    }
    return common::ok();
}

common::Status KernelSession::wait_ready(Clock::time_point deadline) {
    // The shell reply proves the kernel runs; an iopub message proves our subscription is live (a SUB socket
    // misses whatever is published before it has joined), so both are awaited, asking again every second.
    bool shell_ok = false, iopub_ok = false;
    auto next_ask = Clock::now();
    while (Clock::now() < deadline) {
        if (stop_) return common::fail("the host is shutting down");
        if (Clock::now() >= next_ask) {
            channels_->send(channels_->shell, make_request(channels_->identity(), "kernel_info_request", nlohmann::json::object()));
            next_ask = Clock::now() + std::chrono::seconds(1);
        }
        zmq::pollitem_t items[] = {{static_cast<void *>(channels_->shell), 0, ZMQ_POLLIN, 0},
                                   {static_cast<void *>(channels_->iopub), 0, ZMQ_POLLIN, 0}};
        zmq::poll(items, 2, kSlice);
        // Everything waiting on each socket; a refused message (failure) is skipped like the others.
        const auto waiting = [](const common::Result<std::optional<Message>> &r) { return !r || r.value(); };
        for (auto r = channels_->receive(channels_->shell); waiting(r); r = channels_->receive(channels_->shell))
            if (r && r.value()->msg_type() == "kernel_info_reply") shell_ok = true;
        for (auto r = channels_->receive(channels_->iopub); waiting(r); r = channels_->receive(channels_->iopub)) iopub_ok = true;
        if (shell_ok && iopub_ok) return common::ok();
        if (!process_->alive()) return common::fail("the kernel process " + process_->exit_reason() + " during start-up");
    }
    return common::fail("the kernel did not answer within " + std::to_string(static_cast<int>(config_.start_timeout_s)) + " s");
}

CellResult KernelSession::execute(std::string_view code, double timeout_s, CellOutput &out, bool silent,
                                  const PartialSink &partial) {
    CellResult res;
    if (!channels_ || !process_) {
        res.status = CellStatus::KernelDied;
        res.reason = "was not running";
        return res;
    }
    Message req = make_request(channels_->identity(), "execute_request",
                               {{"code", std::string(code)},
                                {"silent", silent},
                                {"store_history", false},
                                {"user_expressions", nlohmann::json::object()},
                                {"allow_stdin", false},
                                // Cells go one at a time, so there is no queue to abort; with true, ipykernel
                                // would also refuse ("aborted") a cell sent right after one that raised.
                                {"stop_on_error", false}});
    const std::string id = req.msg_id();
    channels_->send(channels_->shell, req);

    const auto started = Clock::now();
    auto deadline = started + seconds_to_duration(timeout_s);
    // raised: the reply said "error"; error_seen: the iopub traceback arrived (the two race on two sockets).
    bool got_reply = false, got_idle = false, raised = false, error_seen = false, timed_out = false;
    auto last_iopub = started, last_message = started, reply_at = started;
    int hb_failures = 0;
    size_t partial_sent = 0, refused = 0;

    auto on_iopub = [&](const Message &m) {
        if (m.parent_msg_id() != id) return;  // late output of an earlier (timed-out) cell
        res.started = true;
        const std::string type = m.msg_type();
        const nlohmann::json &c = m.content;
        if (type == "status") {
            auto st = c.find("execution_state");
            if (st != c.end() && st->is_string() && *st == "idle") got_idle = true;
            return;
        }
        if (timed_out || error_seen) return;  // the peer stops collecting at the error; after a timeout, nothing counts
        if (type == "stream") {
            auto t = c.find("text");
            if (t == c.end() || !t->is_string()) return;
            const std::string &text = t->get_ref<const std::string &>();
            out.add_text(text);
            if (partial && partial_sent < kPartialBudget) {
                partial(text);
                partial_sent += text.size();
            }
        } else if (type == "execute_result" || type == "display_data") {
            auto d = c.find("data");
            if (d == c.end() || !d->is_object()) return;
            if (auto tp = d->find("text/plain"); tp != d->end() && tp->is_string()) out.add_text(tp->get_ref<const std::string &>());
            if (auto png = d->find("image/png"); png != d->end() && png->is_string()) out.add_png_base64(png->get_ref<const std::string &>());
        } else if (type == "error") {
            std::string joined;
            if (auto tb = c.find("traceback"); tb != c.end() && tb->is_array()) {
                for (size_t i = 0; i < tb->size(); ++i) {
                    if (i) joined += '\n';
                    if ((*tb)[i].is_string()) joined += (*tb)[i].get_ref<const std::string &>();
                }
            }
            out.add_text(joined);
            error_seen = true;
        }
    };

    while (true) {
        if (got_reply && got_idle) break;
        const auto now = Clock::now();
        // iopub is relayed by its own kernel thread and may lag the shell reply on a loaded machine: give up
        // on the idle status only after the grace period has passed since the reply and since the last
        // iopub message alike.
        if (got_reply && now - std::max(reply_at, last_iopub) > kIdleGraceAfterReply) {
            log(LogLevel::Warning, "no idle status after the execute reply; some output may be missing");
            break;
        }
        if (stop_) {
            if (process_) process_->interrupt();
            res.status = CellStatus::Stopped;
            return res;
        }
        if (now >= deadline) {
            if (timed_out) {  // the interrupt did not end the cell: the kernel is wedged, replace it
                const std::string why = "did not stop within " +
                                        std::to_string(static_cast<int>(config_.interrupt_grace_s)) +
                                        " s of an interrupt after a cell timed out";
                log(LogLevel::Warning, "IPython kernel " + why + "; killing it");
                discard_kernel(why);
                res.status = CellStatus::TimedOut;
                return res;
            }
            timed_out = true;
            if (config_.interrupt_by_message)
                channels_->send(channels_->control, make_request(channels_->identity(), "interrupt_request", nlohmann::json::object()));
            else
                process_->interrupt();
            deadline = now + seconds_to_duration(config_.interrupt_grace_s);
            continue;
        }
        // Only shell and iopub carry a cell's messages; stdin and control are drained when a slice passes
        // quietly. Every socket polled or read costs libzmq a few system calls per wake-up, expensive in
        // these VMs, and a cell wakes this loop once per message.
        zmq::pollitem_t items[] = {{static_cast<void *>(channels_->shell), 0, ZMQ_POLLIN, 0},
                                   {static_cast<void *>(channels_->iopub), 0, ZMQ_POLLIN, 0}};
        const auto wait = std::min<Clock::duration>(kSlice, deadline - now);
        zmq::poll(items, 2, std::chrono::duration_cast<milliseconds>(wait) + milliseconds(1));

        bool any = false;
        auto drain = [&](zmq::socket_t &sock, auto &&handle) {
            for (size_t n = 0; n < kDrainBatch; ++n) {
                const auto r = channels_->receive(sock);
                if (r && !r.value()) return;
                any = true;
                if (!r) {
                    if (refused++ < 3) log(LogLevel::Warning, "refused a message from the kernel: " + r.error().message);
                    continue;
                }
                handle(*r.value());
            }
        };
        if (items[0].revents & ZMQ_POLLIN) drain(channels_->shell, [&](const Message &msg) {
            if (msg.parent_msg_id() == id && msg.msg_type() == "execute_reply") {
                got_reply = true;
                reply_at = Clock::now();
                auto st = msg.content.find("status");
                if (st != msg.content.end() && st->is_string() && *st == "error") raised = true;
            }
        });
        if (items[1].revents & ZMQ_POLLIN) drain(channels_->iopub, [&](const Message &msg) {
            last_iopub = Clock::now();
            on_iopub(msg);
        });
        if (any) {
            last_message = Clock::now();
            hb_failures = 0;
            continue;
        }
        drain(channels_->stdin_, [&](const Message &) {});   // allow_stdin is false: nothing is expected
        drain(channels_->control, [&](const Message &) {});  // interrupt replies
        if (any) {
            last_message = Clock::now();
            hb_failures = 0;
            continue;
        }
        if (!process_->alive()) {
            res.status = CellStatus::KernelDied;
            res.reason = process_->exit_reason();
            const std::string tail = trim_tail(process_->output_tail());
            log(LogLevel::Warning, "IPython kernel " + res.reason + " during a cell" + (tail.empty() ? "" : "; its last output:\n" + tail));
            discard_kernel(res.reason);
            return res;
        }
        if (Clock::now() - last_message > kQuietBeforeHeartbeat) {
            if (channels_->heartbeat(kHeartbeatTimeout)) {
                hb_failures = 0;
            } else if (++hb_failures >= kHeartbeatFailuresForDeath) {
                res.status = CellStatus::KernelDied;
                res.reason = "stopped answering heartbeats";
                log(LogLevel::Warning, "IPython kernel stopped answering heartbeats; killing it");
                discard_kernel(res.reason);
                return res;
            }
            last_message = Clock::now();
        }
    }
    res.raised = raised || error_seen;
    res.status = timed_out ? CellStatus::TimedOut : CellStatus::Completed;
    return res;
}

}  // namespace actionhost::jupyter
