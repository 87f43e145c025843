// A named terminal: an interactive shell on a pseudo-terminal of its own, for a person (ahctl shell,
// ahctl attach, the web view), not the agent's shell session. It lives on when its clients detach, until
// its shell exits, it is closed, or it has had no client for the registry's detached timeout.
//
// One thread per session reads the terminal all the time, attached or not (a shell writing to a terminal
// nobody reads would block once the kernel's buffer is full): a Boost.Asio event loop of its own that
// waits for the terminal's output, the shell's exit and close(). What it read last (`scrollback` bytes) is
// kept, so a client attaching later sees the screen's recent past before the live output.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <actionhost/common/process/child_process.hpp>

namespace actionhost::host {

class TerminalSession {
  public:
    // What a client is told. Both are called on the session's reader thread with the session's lock held:
    // they must only hand the data over (post it to the client's own loop), never block or call back in.
    struct Client {
        std::function<void(std::string_view)> output;
        std::function<void(int exit_code)> ended;  // the shell exited (code, or 128+signal)
    };

    TerminalSession(std::string name, std::unique_ptr<common::ChildProcess> shell, size_t scrollback_bytes);
    ~TerminalSession();  // close()
    TerminalSession(const TerminalSession &) = delete;
    TerminalSession &operator=(const TerminalSession &) = delete;

    const std::string &name() const { return name_; }
    pid_t pid() const { return shell_->pid(); }

    // Adds a client and returns the scrollback, at one instant: every byte of output is either in what
    // is returned or given to client->output afterwards, never both, never neither. A session whose shell
    // has ended calls client->ended before returning.
    std::string attach(const std::shared_ptr<Client> &client);
    // After it returns, the client is never called again.
    void detach(const std::shared_ptr<Client> &client);
    size_t clients() const;

    // Typed input, as bytes (a ^C byte is a SIGINT to the foreground process group: the terminal is in
    // the mode its programs set, the kernel's line discipline decides). Waits at most `wait` for room.
    bool write_input(std::string_view data, std::chrono::milliseconds wait = std::chrono::milliseconds(2000));
    // TIOCSWINSZ: the kernel sends SIGWINCH to the foreground process group when the size changes.
    // `redraw` changes it twice (one row less, then the size) so a full-screen program repaints even when
    // the size is what it was (a client attaching to a running editor).
    bool resize(unsigned short rows, unsigned short cols, bool redraw = false);

    bool ended() const { return ended_; }
    int exit_code() const { return exit_code_; }
    // When the last client detached (or the session started, if none ever attached); meaningless while
    // clients() > 0.
    std::chrono::steady_clock::time_point unattached_since() const;
    // Kills every process of the shell's session and ends the reader. Idempotent. Thread: any but the
    // reader's (a client callback's).
    void close();

  private:
    struct Reader;
    void finish(int exit_code);  // under mutex_

    std::string name_;
    std::unique_ptr<common::ChildProcess> shell_;
    size_t scrollback_bytes_;
    mutable std::mutex mutex_;
    std::string scrollback_;
    std::vector<std::shared_ptr<Client>> clients_;
    std::chrono::steady_clock::time_point unattached_since_;
    std::mutex input_mutex_;
    std::atomic<bool> ended_{false};
    std::atomic<int> exit_code_{-1};
    std::unique_ptr<Reader> reader_;  // the event loop; close() stops it
    std::thread reader_thread_;       // runs it
    std::once_flag closed_;
};

}  // namespace actionhost::host
