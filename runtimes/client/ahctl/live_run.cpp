#include <actionhost/common/text.hpp>
#include "live_run.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/live_output.hpp>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "style.hpp"
#include <actionhost/common/json_write.hpp>

namespace ahctl {

using namespace actionhost::client;
using nlohmann::json;

namespace {

// No bound unless -t gives one: a month is "however long it is quiet" for every practical purpose and
// keeps the wire's own request timeout finite.
constexpr double kUnbounded = 30.0 * 24 * 3600;

// Writes output chunks to a stream as they come. Output of a command on the session's terminal has the
// terminal's CR LF line ends: into a file or a pipe they become LF (a lone CR, a progress bar's, is kept);
// output of a command without the terminal is written as it came.
// Thread-safe: the action's thread writes while the main thread, on Ctrl-C, finishes the stream
// before it says "interrupted" and the action's thread may still be writing.
class ChunkWriter {
  public:
    ChunkWriter(FILE *out, bool from_terminal) : out_(out), terminal_(isatty(fileno(out)) != 0 || !from_terminal) {}
    // The command runs on the terminal after all (a host without `tty`).
    void set_from_terminal() {
        std::lock_guard lock(mu_);
        terminal_ = isatty(fileno(out_)) != 0;
    }
    void write(const std::string &chunk) {
        std::lock_guard lock(mu_);
        std::string text;
        if (terminal_) {
            text = chunk;
        } else {
            text.reserve(chunk.size() + 1);
            for (char c : chunk) {
                if (pending_cr_ && c != '\n') text += '\r';
                pending_cr_ = c == '\r';
                if (!pending_cr_) text += c;
            }
        }
        std::fwrite(text.data(), 1, text.size(), out_);
        std::fflush(out_);
        ends_with_newline_ = text.empty() ? ends_with_newline_ : text.back() == '\n';
        wrote_ = wrote_ || !text.empty();
    }
    void finish() {
        std::lock_guard lock(mu_);
        if (pending_cr_) std::fputc('\r', out_);
        pending_cr_ = false;
        std::fflush(out_);
    }
    bool wrote() const {
        std::lock_guard lock(mu_);
        return wrote_;
    }

  private:
    mutable std::mutex mu_;
    FILE *out_;
    bool terminal_;
    bool pending_cr_ = false, ends_with_newline_ = true, wrote_ = false;
};

// SIGINT and SIGTERM, taken by one thread (sigwait) instead of killing ahctl mid-request: the
// runtime is then closed properly. Blocked before any other thread starts, so every thread inherits it.
class InterruptWatch {
  public:
    InterruptWatch() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGINT);
        sigaddset(&set_, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &set_, &old_);
        thread_ = std::thread([this] {
            int sig = 0;
            while (sigwait(&set_, &sig) == 0) {
                std::lock_guard lock(mu_);
                if (done_) return;
                interrupted_ = sig;
                cv_.notify_all();
                return;
            }
        });
    }
    ~InterruptWatch() {
        {
            std::lock_guard lock(mu_);
            done_ = true;
        }
        pthread_kill(thread_.native_handle(), SIGTERM);  // ends its sigwait (blocked: only it takes it)
        thread_.join();
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    // Waits until `finished` or a signal; returns the signal number, 0 when finished first.
    int wait(const std::function<bool()> &finished) {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return interrupted_ != 0 || finished(); });
        return interrupted_;
    }
    int interrupted() {
        std::lock_guard lock(mu_);
        return interrupted_;
    }
    void notify() {
        std::lock_guard lock(mu_);
        cv_.notify_all();
    }

  private:
    sigset_t set_, old_;
    std::thread thread_;
    std::mutex mu_;
    std::condition_variable cv_;
    int interrupted_ = 0;
    bool done_ = false;
};

// Ctrl-C in a kept-alive session: the command must not go on. The key goes as OpenHands' wire sends it (a
// `run` input "C-c"), which the host lets through beside the running action (docs/api.md, "Interrupting
// a running command"); a bounded wait, so ahctl exits promptly even when the host does not answer.
void interrupt_remote(WireClient &running, const std::string &session_id) {
    try {
        WireClient wire(running.base_url(), running.session_api_key(), running.policy());
        wire.policy().closed_attempts = 1;
        wire.policy().execute_extra_s = 1;
        const json key = {{"action", "run"}, {"args", {{"command", "C-c"}, {"is_input", true}}}, {"timeout", 2}};
        const json obs = wire.execute(key, "");
        const int code = exit_code_of(obs);
        std::cerr << "[ahctl] the command in kept-alive session " << session_id
                  << (code >= 0 ? " was interrupted" : " was sent Ctrl-C") << "\n";
    } catch (const std::exception &e) {
        std::cerr << "[ahctl] could not interrupt the command in kept-alive session " << session_id << ": " << e.what()
                  << "\n";
    }
}

// A rest of 64 KiB per round, so ahctl never holds more of its stdin than that.
constexpr size_t kStdinChunk = 64 * 1024;
// Rounds of the stdin feed: each reads ahctl's stdin or waits at most 100 ms for it; the feed ends with
// the command long before (a bound on the count, as every loop has one).
constexpr long long kStdinRounds = 100'000'000;

// `ahctl run -i`: ahctl's stdin to the command's, through POST /stdin (docs/api.md) — a piece as it is
// read, the rest of a piece sent again while the command does not read it, end of file when ahctl's stdin
// ends. Stops when the command's stdin is closed or `done` (the command ended). Returns why it failed,
// "" when it did not.
std::string feed_stdin(WireClient &wire, const std::atomic<bool> &done) {
    std::vector<char> buf(kStdinChunk);
    for (long long round = 0; round < kStdinRounds && !done; ++round) {
        pollfd p{0, POLLIN, 0};
        const int ready = poll(&p, 1, 100);
        if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
        ssize_t n = ready < 0 ? 0 : read(0, buf.data(), buf.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        const bool last = n <= 0;  // end of file (or stdin cannot be read: the command sees the end)
        const std::string piece(buf.data(), n > 0 ? static_cast<size_t>(n) : 0);
        size_t sent = 0;
        for (int attempt = 0; attempt < 1'000'000 && !done; ++attempt) {
            HttpRequest rq;
            rq.method = "POST";
            rq.path = last ? "/stdin?eof=1" : "/stdin";
            rq.body = piece.substr(sent);
            rq.content_type = "application/octet-stream";
            rq.timeout_s = 30;
            json answer;
            try {
                answer = json::parse(wire.request(std::move(rq)).body, nullptr, false);
            } catch (const WireError &e) {
                // 409: the command has not started yet (or ended; then `done` comes).
                if (e.status() == 409) {
                    usleep(50'000);
                    continue;
                }
                return e.what();
            }
            if (!answer.is_object()) return "the host answered POST /stdin with no JSON object";
            sent += std::min<size_t>(answer.value("written", size_t{0}), piece.size() - sent);
            if (answer.value("closed", false)) return "";  // the command reads no more (or the end went)
            if (sent == piece.size() && !last) break;
        }
        if (last) return "";
    }
    return "";
}

}  // namespace

int exit_code_of(const json &obs) {
    if (!obs.is_object() || !obs.contains("extras") || !obs["extras"].is_object()) return -1;
    const json &extras = obs["extras"];
    if (!extras.contains("metadata") || !extras["metadata"].is_object()) return -1;
    auto it = extras["metadata"].find("exit_code");
    return it != extras["metadata"].end() && it->is_number_integer() ? it->get<int>() : -1;
}

int run_live(const Options &o, OpenRuntime open, json args, LiveRunMode mode) {
    InterruptWatch interrupts;
    auto rt = open(o, false);
    const bool kept = rt->config().get_bool("sandbox.keep_runtime_alive");
    if (interrupts.interrupted()) {
        rt->close();
        return kInterrupted;
    }
    args["blocking"] = true;
    // As docker run: no terminal (the bash plugin's `tty` false: stdin /dev/null, or ahctl's own with -i;
    // stdout and stderr pipes of their own). With --tty the session's terminal, the command's stderr
    // through a pipe of its own (`separate_stderr`), so it reaches ahctl's stderr apart from its stdout;
    // `--agent` and `exec` keep the terminal's merged output.
    if (mode.tty) {
        args["separate_stderr"] = true;
    } else {
        args["tty"] = false;
        if (mode.interactive) args["open_stdin"] = true;
    }
    json action = {{"action", "run"}, {"args", args}, {"timeout", o.timeout.value_or(kUnbounded)}};
    // The action runs on a thread of its own with a wire of its own, so this thread can answer Ctrl-C.
    WireClient wire(rt->wire().base_url(), rt->wire().session_api_key(), rt->wire().policy());
    wire.policy().closed_attempts = 1;  // an interrupted or dead host is not asked again
    WireClient stdin_wire(rt->wire().base_url(), rt->wire().session_api_key(), rt->wire().policy());
    stdin_wire.policy().closed_attempts = 1;
    ChunkWriter out(stdout, mode.tty), err(stderr, mode.tty);
    std::atomic<bool> streamed{false}, stream_ended{false};
    std::atomic<long long> dropped{0};
    std::optional<json> observation;
    std::exception_ptr failure;
    std::mutex mu;
    bool finished = false;
    std::thread worker([&] {
        json obs;
        std::exception_ptr error;
        const LiveEventFn on_event = [&](const LiveEvent &e) {
            if (e.type == "action_start") streamed = true;
            else if (e.type == "output" && !o.json)  // --json: the observation only
                (e.data.value("stream", "") == "stderr" ? err : out).write(e.data.value("chunk", ""));
            else if (e.type == "dropped") dropped += e.data.value("events", 1LL);
            else if (e.type == "action_end") stream_ended = true;
        };
        // A server that does not know an argument (an older actionhost, an OpenHands runtime) refuses the
        // action before running anything: it runs again as such a server can (on its terminal, then with
        // merged output); a refused -i is an error, never a command run without its input.
        const auto refused = [](const WireError &e, const char *arg) {
            return e.status() == 500 && e.detail().find(std::string("'") + arg + "'") != std::string::npos;
        };
        try {
            try {
                obs = execute_following(wire, action, "", on_event);
            } catch (const WireError &e) {
                if (!refused(e, "tty") && !refused(e, "open_stdin")) throw;
                if (mode.interactive)
                    throw std::runtime_error("the host does not know `open_stdin` (an older actionhost?): -i needs a newer one");
                action["args"].erase("tty");
                action["args"]["separate_stderr"] = true;
                out.set_from_terminal();
                err.set_from_terminal();
                obs = execute_following(wire, action, "", on_event);
            }
        } catch (const WireError &e) {
            try {
                if (!refused(e, "separate_stderr")) throw;
                action["args"].erase("separate_stderr");
                obs = execute_following(wire, action, "", on_event);
            } catch (...) {
                error = std::current_exception();
            }
        } catch (...) {
            error = std::current_exception();
        }
        {
            std::lock_guard lock(mu);
            observation = std::move(obs);
            failure = error;
            finished = true;
        }
        interrupts.notify();
    });
    std::atomic<bool> action_done{false};
    std::string stdin_failure;
    std::thread feeder;
    if (mode.interactive) feeder = std::thread([&] { stdin_failure = feed_stdin(stdin_wire, action_done); });
    const auto stop_feeder = [&] {
        action_done = true;
        if (feeder.joinable()) feeder.join();
    };
    const int sig = interrupts.wait([&] {
        std::lock_guard lock(mu);
        return finished;
    });
    if (sig != 0) {
        out.finish();
        err.finish();
        std::cerr << "\n" << red("ahctl: interrupted") << (kept ? "" : "; stopping the runtime") << "\n";
        if (kept)
            interrupt_remote(wire, rt->session_id());
        else
            rt->close();  // the sandbox goes, with the command and everything it made
        std::fflush(stderr);
        std::_Exit(kInterrupted);  // the worker's request dies with the process
    }
    worker.join();
    stop_feeder();
    out.finish();
    err.finish();
    if (failure) std::rethrow_exception(failure);
    if (!stdin_failure.empty())
        std::cerr << red("ahctl: error:") << " the command's stdin: " << actionhost::common::printable_for_terminal(stdin_failure) << "\n";
    const json &obs = *observation;
    if (obs.value("observation", "") != "run") {
        rt->close();
        std::cerr << red("ahctl: error:") << " " << actionhost::common::printable_for_terminal(obs.value("content", std::string("the command did not run"))) << "\n";
        return kActionFailed;
    }
    // No live events (an in-process runtime): the observation's content is all there is.
    if (!streamed && !o.json) {
        auto with_newline = [](std::string text) { return text.empty() || text.back() == '\n' ? text : text + "\n"; };
        out.write(with_newline(obs.value("content", "")));
        const json &extras = obs.value("extras", json::object());
        if (extras.is_object() && extras.contains("stderr") && extras["stderr"].is_string())
            err.write(with_newline(extras["stderr"].get<std::string>()));
        out.finish();
        err.finish();
    }
    if (o.json) std::cout << actionhost::common::dump_json(obs) << "\n" << std::flush;
    int code = exit_code_of(obs);
    if (code < 0) {
        // The -t bound passed: the command is interrupted, so a kept session is free for the next one.
        std::cerr << red("ahctl: error:") << " the command did not finish within " << o.timeout.value_or(kUnbounded)
                  << " s; interrupted\n";
        try {
            rt->execute({{"action", "run"}, {"args", {{"command", "C-c"}, {"is_input", true}}}, {"timeout", 10}});
        } catch (const std::exception &) {
        }
        code = kTimedOut;
    }
    rt->close();
    if (dropped > 0 || (streamed && !stream_ended)) {
        std::cerr << red("ahctl: error:") << " "
                  << (dropped > 0 ? std::to_string(dropped.load()) + " pieces of output were lost (this terminal read slower than the command wrote)"
                                  : std::string("the live output stopped before the command ended: the rest of it was lost"))
                  << "\n";
        return code == 0 ? kActionFailed : code;
    }
    return code;
}

}  // namespace ahctl
