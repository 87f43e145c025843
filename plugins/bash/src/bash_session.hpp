// One persistent bash on a pseudo-terminal, driven with OpenHands' BashSession semantics
// (openhands/runtime/utils/bash.py; where we differ and why: docs/compat.md).
//
// The terminal is drained all the time (so background jobs never block on a full terminal): by a reader
// thread between actions, and by the action's own thread while it waits (the reader parks; one thread
// hand-off less per action). Either splits the byte stream at prompt markers and folds output into a
// bounded ObservationText. `execute` types the command, then reads until the marker arrives, the output
// stops changing for the soft timeout, or the hard timeout passes: completion is noticed the moment bash
// prints its prompt. Timeouts never kill anything; the next action continues with what is running.
//
// A command sent with `separate_stderr` runs in the same shell (cwd, variables, functions persist as for
// any command) as `{ COMMAND\n} 2>FIFO`: its stderr reaches a FIFO the session holds open for its whole
// life (both ends, so a background job writing to it later neither blocks nor gets SIGPIPE), drained
// alongside the terminal. Stdin and stdout stay the terminal.
//
// A command sent with `tty` false runs in the same shell without the terminal, as `docker run` without
// -t: `{ . FILE\n} <IN >STDOUT-FIFO 2>STDERR-FIFO`, the command sourced from a file (so that its `exit`
// leaves no "exit" in its stderr), IN /dev/null or, with `open_stdin`, a FIFO of its own that
// feed_stdin (POST /stdin) writes and closes (end of file). The stdout FIFO is held and drained as the
// stderr one is.
#pragma once

#include <actionhost/common/io/unique_fd.hpp>

#include <actionhost/common/oom.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <actionhost/common/log.hpp>
#include <actionhost/common/process/child_process.hpp>
#include "messages.hpp"
#include "observation_text.hpp"
#include "prompt_marker.hpp"
#include "python_lookup.hpp"
#include "run_request.hpp"
#include <actionhost/common/process/shell_identity.hpp>
#include "stream_filters.hpp"

namespace actionhost::bash {

struct SessionConfig {
    std::string name;         // "" for the default session (only used in log lines)
    std::string working_dir;  // where the shell starts
    std::shared_ptr<const common::ShellIdentity> identity;
    std::string bash_path = "/bin/bash";
    double no_change_timeout_s = 10;
    std::string no_change_timeout_text = "10";  // as OpenHands prints it
    common::LogSink log;
};

using EmitFn = std::function<void(std::string_view chunk)>;

// What feed_stdin did with a client's bytes.
struct StdinFeed {
    size_t written = 0;       // bytes the command's stdin took (all of them unless it does not read)
    bool closed = false;      // the stdin is gone (ended by eof, closed by the command, or the command ended)
    bool no_command = false;  // no command of the session reads its stdin (none was started with open_stdin)
    std::string error;        // an unexpected failure, said in words
};

class BashSession {
  public:
    explicit BashSession(SessionConfig config);
    ~BashSession();
    BashSession(const BashSession &) = delete;
    BashSession &operator=(const BashSession &) = delete;

    // Starts bash and waits for its first prompt. Safe to call again to replace a dead shell.
    common::Status start();

    // Runs one `run` action; returns the observation JSON. `emit` (may be empty) receives output as
    // it arrives, in UTF-8-complete chunks, while this call waits (from this thread or the reader thread);
    // `emit_stderr` the stderr of a command sent with `separate_stderr`.
    // Thread: one call at a time per session (calls are serialised here too) — except a special key sent
    // as input (C-c) while another call runs: it goes to the terminal at once (see send_key_beside).
    std::string execute(const RunRequest &request, const EmitFn &emit, const EmitFn &emit_stderr = {});

    // Writes `data` to the stdin of the running `open_stdin` command (waiting a moment for one to be
    // typed and to open it), within `wait`; with `eof`, once all is written, ends its input.
    // Thread: any, beside execute; callers are served one at a time.
    StdinFeed feed_stdin(std::string_view data, bool eof, std::chrono::milliseconds wait);

    // Kills the shell and everything in its terminal session; a waiting execute returns at once.
    // Thread: any; may run while execute is in flight.
    void shutdown();

    // The shell's working directory as of its last prompt.
    std::string current_dir() const;
    pid_t shell_pid() const;

  private:
    enum class Status { Completed, NoChangeTimeout, HardTimeout };

    void reader_loop(common::ChildProcess *shell, int wake_fd);
    // While an action waits for its prompt, its own thread reads the terminal (one hand-off less per
    // action); the reader thread parks meanwhile. Called with mu_ held. The reader thread takes the
    // terminal back kReaderResumeDelay after an action ends, or at once with `hand_back_now` (the shell
    // is going and the reader reports its exit).
    void begin_worker_reading();
    void end_worker_reading(bool hand_back_now);
    // One poll+read of the terminal by the waiting action (mu_ released by the caller). False when the
    // terminal or the shell is gone: the reader thread then takes over and reports the exit.
    bool worker_read_once(common::ChildProcess *shell, int timeout_ms);
    void stop_reader();
    void on_bytes(std::string_view raw);
    void on_stderr_bytes(std::string_view raw);
    // Reads what the stderr FIFO holds now (a finished command's last writes); mu_ not held.
    void drain_stderr();
    // The private directory belongs to the shell's user (the agent), who may plant links or rename
    // entries in it: the host only ever reaches its entries through private_dir_fd_ (opened before the
    // directory was handed over), never follows a link there and never reuses an entry it did not make.
    // A FIFO `name` made afresh (whatever was at that name is removed first) and handed to the shell's user.
    common::Status make_fifo(const std::string &name);
    // `name` (a file of the host's: rcfile, a command) written afresh with `content`, mode 0644; its path.
    common::Result<std::string> write_private_file(const std::string &name, const std::string &content);
    // Opens the FIFO `name` with `flags` (O_NOFOLLOW added); -1 with errno, ELOOP/EINVAL for anything
    // that is not a FIFO there.
    int open_private_fifo(const std::string &name, int flags);
    // A FIFO the session keeps for its life, both ends held (stdout, stderr of the commands).
    common::Status open_output_fifo(const std::string &name, std::string &path, int &read_fd, int &hold_fd);
    void drain_stdout();  // as drain_stderr
    void on_stdout_bytes(std::string_view raw);
    // What a tty-less command is typed as (see the head of this file); sets up its stdin FIFO.
    common::Result<std::string> tty_less_command(const std::string &command, bool open_stdin);
    // Opens the running command's stdin FIFO once the command opened its end; true while that is awaited.
    bool try_open_stdin();
    bool open_stdin_locked();  // stdin_mu_ held
    void close_stdin();        // the command ended: its stdin goes, with what it did not read
    // The stdout of a tty-less command collected for the observation, its held-back characters flushed
    // (under mu_); `command_ended` ends the command's tty-less state.
    void take_stdout(bool command_ended);
    // A special key sent while another execute of this session runs (an interrupt from a client whose
    // own action still waits): types the key and waits a moment for the running command to end.
    std::string send_key_beside(const RunRequest &rq);
    void on_output(std::string_view raw);
    void on_prompt(const PromptInfo &info);
    void on_shell_exit(common::ChildProcess *shell);

    common::Status ensure_private_dir();
    common::Result<std::string> write_rcfile(const std::string &start_dir);  // its path
    std::string typed_command(const std::string &command);
    RunMetadata metadata_of(const PromptInfo &p);  // under mu_
    // Types a line that only sets __ah_sync (keeping $?), and waits for its prompt; called with `lk` held.
    void sync_with_shell(std::unique_lock<std::mutex> &lk);

    // Observation builders; called with mu_ held.
    std::string finish_completed(const std::string &command, const RunRequest &rq, bool special_key);
    std::string finish_exited(const std::string &command, const RunRequest &rq);
    std::string finish_timeout(const std::string &command, const RunRequest &rq, Status why);
    // The separate stderr collected for the observation being built (nullopt when the command has none),
    // its held-back characters flushed to the stream; `command_ended` ends the separation.
    std::optional<std::string> take_stderr(bool truncate, bool command_ended);

    void log(common::LogLevel level, const std::string &msg) const;

    const SessionConfig config_;
    // Out-of-memory kills in the host's memory cgroup, counted when a command is sent, so its
    // observation can say that the kernel killed it (see common/oom.hpp).
    const common::MemoryCgroup memory_cgroup_;
    std::optional<uint64_t> oom_kills_at_start_;
    const PromptMarker marker_;
    std::string private_dir_;  // holds the rcfile and over-long commands; removed with the session
    common::io::UniqueFd private_dir_fd_;  // the directory itself, opened before it was handed over
    int long_command_seq_ = 0;

    std::mutex exec_mu_;  // one execute at a time
    Status prev_status_ = Status::Completed;
    bool returned_partial_ = false;  // an observation of the running command was already returned
    // The last command ended after input or a key was sent: part of that input (the Enter after `q`
    // to less) may still reach bash and print extra prompts. The next typed command syncs first.
    bool stray_input_possible_ = false;
    int sync_seq_ = 0;

    mutable std::mutex mu_;  // guards everything below
    std::mutex read_mu_;  // one reader of the terminal at a time, so chunks are handled in order
    // What an action's thread reads the terminal and the stderr FIFO into; read_mu_ held. A member, not
    // thread_local: the host's handler threads end when idle, and a thread_local of a dlopen'ed library
    // is freed by glibc's thread-stack cache in a way ThreadSanitizer reports as a race.
    std::vector<char> read_buffer_ = std::vector<char>(1 << 16);
    std::condition_variable reader_cv_;  // the parked reader thread waits here (see reader_resume_at_)
    bool worker_reads_ = false;
    // While worker_reads_ is clear, the parked reader resumes at this time: an action hands the terminal
    // back lazily, so that back-to-back actions never wake the reader thread (see end_worker_reading).
    std::chrono::steady_clock::time_point reader_resume_at_{};
    bool reader_polling_ = false;  // the reader thread is in (or about to enter) its poll of the terminal
    bool reader_stop_ = false;
    std::condition_variable cv_;  // signalled on prompts, shell exit and shutdown
    bool wake_waiters_ = false;   // a prompt was seen while feeding: notify once mu_ is released
    std::unique_ptr<common::ChildProcess> shell_;
    std::thread reader_;
    int wake_fd_ = -1;
    std::unique_ptr<MarkerScanner> scanner_;
    OutputNormalizer normalizer_;
    Utf8Chunker emit_utf8_;
    ObservationText output_;  // output of the current command not yet returned
    ObservationText after_;   // output after a prompt nobody has collected yet
    std::optional<PromptInfo> completed_;
    std::string awaited_sync_;  // while non-empty: sync_with_shell waits for a prompt showing it
    bool sync_seen_ = false;
    bool awaiting_prompt_ = false;  // something was sent and its prompt has not been seen
    bool first_prompt_seen_ = false;
    PromptInfo last_prompt_;
    PythonLookup python_lookup_;  // under mu_
    RunObservationWriter observation_writer_;  // under mu_
    std::chrono::steady_clock::time_point last_output_{};
    bool shell_exited_ = false;
    int shell_exit_code_ = -1;
    const EmitFn *emit_ = nullptr;
    // The command awaiting its prompt was sent with separate_stderr: FIFO bytes are its stderr.
    bool stderr_separate_ = false;
    bool command_typed_ = false;     // the awaited command's text has reached the terminal
    uint64_t commands_finished_ = 0;  // counts finish_completed/finish_exited, for send_key_beside
    const EmitFn *emit_stderr_ = nullptr;
    Utf8Chunker emit_stderr_utf8_;
    OutputNormalizer stderr_normalizer_;
    ObservationText stderr_text_;  // the separate stderr not yet returned
    std::string stderr_fifo_;      // path in private_dir_
    int stderr_read_fd_ = -1;      // non-blocking
    int stderr_hold_fd_ = -1;      // our own write end: the FIFO never reports EOF or HUP
    // The command awaiting its prompt runs without the terminal: stdout FIFO bytes are its stdout and
    // the terminal's bytes its stderr.
    bool notty_ = false;
    Utf8Chunker emit_stdout_utf8_;
    OutputNormalizer stdout_normalizer_;
    std::string stdout_fifo_;
    int stdout_read_fd_ = -1;
    int stdout_hold_fd_ = -1;
    int stdin_seq_ = 0;  // under mu_

    std::mutex stdin_feed_mu_;  // one feed_stdin at a time
    std::mutex stdin_mu_;       // guards the stdin state below; taken after mu_ when both are
    std::condition_variable stdin_cv_;
    std::string stdin_fifo_;         // the running open_stdin command's, "" when none
    std::string stdin_fifo_name_;    // its name in private_dir_
    int stdin_fd_ = -1;              // our write end, once the command opened its read end
    bool stdin_ended_ = false;       // the client ended the input
    uint64_t stdin_generation_ = 0;  // changes with each command's stdin
    bool stdin_stopping_ = false;
    bool stopping_ = false;
};

// A special key action: "C-" and one character (OpenHands' _is_special_key).
bool is_special_key(std::string_view command);
// The byte a terminal sends for C-<x>.
std::string special_key_bytes(std::string_view command);

}  // namespace actionhost::bash
