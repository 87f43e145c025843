// The one way actionhost starts a child process: the bash plugin's shells and the host's terminals (on a
// pseudo-terminal), the kernels, editors, browsers and MCP servers of the plugins (on pipes or a log
// file), the host's helper commands and the client's backends (the host they start, tar, credential
// helpers). Every child gets: a process group of its own (a session, by default), only its three
// standard streams and the descriptors named in keep_fds and mapped_fds (nothing else of the parent, whatever flags
// the parent opened it with), default signal dispositions and an empty signal mask.
//
// Threads: spawn() may be called from any thread, concurrently. One ChildProcess is used by its owner;
// wait(), try_reap(), running() and the signal/terminate calls may also come from another thread at the
// same time (reaping is serialised inside), the descriptors' accessors too.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actionhost/common/process/shell_identity.hpp"
#include "actionhost/common/result.hpp"

namespace actionhost::common {

// Where one of the child's standard streams goes.
struct Stream {
    enum Kind {
        Null,     // /dev/null
        Inherit,  // this process's own descriptor of the same number
        Pipe,     // a pipe whose other end the ChildProcess holds (non-blocking, close-on-exec)
        File,     // `path`: read for stdin; written (created 0644, appended or truncated) for stdout/stderr
        Stdout,   // stderr only: wherever stdout goes
        Descriptor,  // `fd`, opened by the caller (who keeps it): for a file in a directory someone else
                     // may write to, opened relative to a descriptor, never again by its name
    };
    Kind kind = Null;
    std::string path;
    bool append = true;
    int fd = -1;

    static Stream null() { return {}; }
    static Stream inherit() { return {Inherit, {}, true}; }
    static Stream pipe() { return {Pipe, {}, true}; }
    static Stream file(std::string path, bool append = true) { return {File, std::move(path), append}; }
    static Stream to_stdout() { return {Stdout, {}, true}; }
    // A copy of `fd` is the child's; `fd` stays the caller's and must stay open until spawn returns.
    static Stream descriptor(int fd) { return {Descriptor, {}, true, fd}; }
};

// Who the child becomes: setgroups, setgid, setuid between fork and exec (needs a root parent).
struct UserSwitch {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;  // supplementary groups, looked up before (initgroups is not fork-safe)
};

struct SpawnSpec {
    // The file executed; "" = argv[0]. A name without '/' is looked up on `search_path`.
    std::string program;
    std::vector<std::string> argv;
    // The complete environment ("K=V"). Unset: the identity's, else this process's own.
    std::optional<std::vector<std::string>> env;
    // ":"-separated directories for a bare program name. Unset: PATH of the child's environment, else
    // /usr/local/bin:/usr/bin:/bin.
    std::optional<std::string> search_path;

    // Shells: the user to switch to (when identity->switch_user), the environment (unless `env` is set),
    // and where the shell starts when working_dir is unusable (its home, else /).
    const ShellIdentity *identity = nullptr;
    // The user to switch to, for a child without a ShellIdentity.
    std::optional<UserSwitch> user;
    // "" = this process's. Without an identity, a working_dir that cannot be entered fails the spawn.
    std::string working_dir;

    // true: the child's stdin, stdout and stderr are a new pseudo-terminal (its controlling one), of
    // which the ChildProcess holds the master; the streams below are then ignored.
    bool use_pty = true;
    unsigned short rows = 1000;  // OpenHands' tmux pane is 1000x1000
    unsigned short cols = 1000;
    // false: the terminal is set for a program typing into it (no echo, LF kept as LF), as the bash
    // plugin's shells need; true: the kernel's defaults, for a person at a terminal.
    bool human_terminal = false;
    Stream in = Stream::null();
    Stream out = Stream::pipe();
    Stream err = Stream::to_stdout();

    // true: a session of its own (no terminal signals of ours reach it; with use_pty, required); false:
    // a process group of its own within our session. Either way kill(-pid) reaches all it started.
    bool new_session = true;
    // SIGKILL to the child when this process ends (PR_SET_PDEATHSIG). The kernel sends it when the
    // *thread* that forked ends, so such children are forked by one thread that lives as long as the
    // library is loaded (spawn() blocks while that thread starts the child).
    bool die_with_parent = false;
    // Descriptors (>= 3) the child inherits as they are, e.g. a lock it must hold as long as it lives.
    std::vector<int> keep_fds;
    // Descriptors the child finds at numbers of its choosing: {ours, its number >= 3}, e.g. the two pipes
    // of Chromium's --remote-debugging-pipe at 3 and 4. Ours stay open here (the caller closes them).
    std::vector<std::pair<int, int>> mapped_fds;
    // oom_score_adj above ours: a child exhausting a memory limit is killed before the host.
    bool prefer_oom_victim = true;
};

// How a child ended.
struct ExitStatus {
    std::optional<int> wait_status;  // waitpid's; unset when someone else reaped it (SIGCHLD ignored)
    int shell_code() const;          // the exit code, or 128+signal, or -1 when unknown
    // "exited with status 1", "was killed by signal 9 (Killed)", "exited (status unknown)".
    std::string describe() const;
};

class ChildProcess {
  public:
    // The started child, or why it could not be started ("command not found: x", "cannot start
    // /usr/bin/x: chdir to /w: No such file or directory", "pipe: Too many open files"; sys_errno set
    // when a system call failed). Nothing is left behind on failure: every descriptor made for the
    // child is closed, a child that failed before its exec is reaped.
    static Result<std::unique_ptr<ChildProcess>> spawn(const SpawnSpec &spec);
    // Starts the thread that forks die_with_parent children now, if it is not running yet. An object of
    // static storage whose own threads spawn such children (the local backend's warm pool) calls it
    // before that object is constructed: statics are destroyed in the reverse order of their
    // construction, so the forking thread is still there while that object's destructor stops its
    // threads, instead of being destroyed under a spawn in progress.
    static void start_lasting_spawner();
    // Unless released: kill_session(), reap the child, close our descriptors.
    ~ChildProcess();
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    pid_t pid() const { return pid_; }  // also the id of its process group (and session)
    int pidfd() const { return pidfd_; }  // readable once the child exited (-1 if unsupported); ours
    // Our ends (owned here, non-blocking, close-on-exec; -1 when the stream is not a pipe/terminal).
    int output_fd() const { return out_fd_; }  // PTY master, or the read end of stdout's pipe
    int stdin_fd() const { return in_fd_; }    // PTY master, or the write end of stdin's pipe
    int stderr_fd() const { return err_fd_; }  // the read end of stderr's pipe
    // Closes stdin's pipe: the child reads end-of-file (the MCP stdio shutdown). Not while another
    // thread writes to it.
    void close_stdin();

    // Writes `data` to stdin_fd(), waiting for room at most until `deadline`.
    bool write_all(std::string_view data, std::chrono::steady_clock::time_point deadline);

    // `sig` to the child alone / to its process group (nothing once it is reaped: the pid may be reused).
    void signal(int sig);
    void signal_group(int sig);
    // SIGKILL to the child's process group and to every process left in its session (background
    // jobs run in process groups of their own).
    void kill_session();
    // SIGTERM to the process group (or, `term_group` false, to the child alone: a program that stops
    // its helpers itself), SIGKILL to the group after `grace`; reaps the child, then SIGKILLs what is
    // left of the group.
    void terminate(std::chrono::milliseconds grace, bool term_group = true);

    // Reaps the child if it exited; returns true with a shell-style status (code, or 128+signal).
    bool try_reap(int *exit_code);
    // Waits at most `timeout` (0: a look) for the child to end; reaps it. Woken by the pidfd.
    std::optional<ExitStatus> wait(std::chrono::milliseconds timeout);
    // False once the child has ended. A child whose main thread is a zombie while its other threads
    // end (node, Python after a SIGKILL) is waited for up to 2 s; if it runs on past that without its
    // main thread it counts as running.
    bool running();

    // Hands the process over: the caller owns its pid (reaps and stops it); our descriptors close and
    // the destructor leaves the process alone. For children that outlive this object (a kept-alive host).
    pid_t release();

  private:
    ChildProcess() = default;
    std::optional<ExitStatus> reap_now();  // one waitpid(WNOHANG) under reap_mu_
    pid_t pid_ = -1;
    int out_fd_ = -1;
    int in_fd_ = -1;
    int err_fd_ = -1;
    int pidfd_ = -1;
    bool released_ = false;
    std::mutex reap_mu_;
    std::optional<ExitStatus> exit_;  // set once reaped (or found reaped elsewhere)
};

}  // namespace actionhost::common
