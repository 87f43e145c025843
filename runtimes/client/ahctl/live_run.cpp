#include <actionhost/common/text.hpp>
#include "live_run.hpp"

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

// Writes output chunks to a stream as they come. The session's shell is a terminal, which ends lines
// with CR LF: into a file or a pipe they become LF (a lone CR, a progress bar's, is kept).
// Thread-safe: the action's thread writes while the main thread, on Ctrl-C, finishes the stream
// before it says "interrupted" and the action's thread may still be writing.
class ChunkWriter {
  public:
    explicit ChunkWriter(FILE *out) : out_(out), terminal_(isatty(fileno(out)) != 0) {}
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

}  // namespace

int exit_code_of(const json &obs) {
    if (!obs.is_object() || !obs.contains("extras") || !obs["extras"].is_object()) return -1;
    const json &extras = obs["extras"];
    if (!extras.contains("metadata") || !extras["metadata"].is_object()) return -1;
    auto it = extras["metadata"].find("exit_code");
    return it != extras["metadata"].end() && it->is_number_integer() ? it->get<int>() : -1;
}

int run_live(const Options &o, OpenRuntime open, json args) {
    InterruptWatch interrupts;
    auto rt = open(o, false);
    const bool kept = rt->config().get_bool("sandbox.keep_runtime_alive");
    if (interrupts.interrupted()) {
        rt->close();
        return kInterrupted;
    }
    args["blocking"] = true;
    // The command's stderr through a pipe of its own (the bash plugin's `separate_stderr`), so it reaches
    // ahctl's stderr apart from its stdout; `--agent` and `exec` keep the terminal's merged output.
    args["separate_stderr"] = true;
    json action = {{"action", "run"}, {"args", args}, {"timeout", o.timeout.value_or(kUnbounded)}};
    // The action runs on a thread of its own with a wire of its own, so this thread can answer Ctrl-C.
    WireClient wire(rt->wire().base_url(), rt->wire().session_api_key(), rt->wire().policy());
    wire.policy().closed_attempts = 1;  // an interrupted or dead host is not asked again
    ChunkWriter out(stdout), err(stderr);
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
        try {
            try {
                obs = execute_following(wire, action, "", on_event);
            } catch (const WireError &e) {
                // A server that does not know the argument (an older actionhost, an OpenHands runtime)
                // refuses the action before running anything: run it again with merged output.
                if (e.status() != 500 || e.detail().find("separate_stderr") == std::string::npos) throw;
                action["args"].erase("separate_stderr");
                obs = execute_following(wire, action, "", on_event);
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
    out.finish();
    err.finish();
    if (failure) std::rethrow_exception(failure);
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
