#include "terminal/terminal_session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace actionhost::host {

TerminalSession::TerminalSession(std::string name, std::unique_ptr<common::ChildProcess> shell, size_t scrollback_bytes)
    : name_(std::move(name)), shell_(std::move(shell)), scrollback_bytes_(scrollback_bytes),
      unattached_since_(std::chrono::steady_clock::now()) {
    if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe: cannot start the terminal's reader");
    reader_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "terminal");
        read_loop();
    });
}

TerminalSession::~TerminalSession() {
    close();
    ::close(wake_[0]);
    ::close(wake_[1]);
}

void TerminalSession::close() {
    std::call_once(closed_, [this] {
        (void)!::write(wake_[1], "x", 1);
        reader_.join();
        shell_->kill_session();
        int code = -1;
        // Killed just now: reaped within moments; bounded so a process stuck in the kernel cannot hold us.
        for (int i = 0; i < 200 && !shell_->try_reap(&code); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::lock_guard lock(mutex_);
        if (!ended_) finish(code);
        clients_.clear();
    });
}

void TerminalSession::read_loop() {
    const int fd = shell_->output_fd();
    char buf[16384];
    bool hung_up = false;  // every process closed the terminal (EIO on the master)
    // Runs until close() or the shell's end; each round waits for an event, so no round is a busy one.
    for (;;) {
        // A hung-up terminal is left out (-1): poll would report POLLHUP for it at once, round after round.
        pollfd p[3] = {{wake_[0], POLLIN, 0}, {hung_up ? -1 : fd, POLLIN, 0}, {shell_->pidfd(), POLLIN, 0}};
        const int n = ::poll(p, shell_->pidfd() >= 0 ? 3 : 2, shell_->pidfd() >= 0 ? -1 : 200);
        if (n < 0 && errno != EINTR) return;
        if (p[0].revents) return;
        if (!hung_up && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t got = ::read(fd, buf, sizeof buf);
            if (got > 0) {
                std::lock_guard lock(mutex_);
                const std::string_view data(buf, static_cast<size_t>(got));
                scrollback_.append(data);
                if (scrollback_.size() > scrollback_bytes_) scrollback_.erase(0, scrollback_.size() - scrollback_bytes_);
                for (const auto &c : clients_) c->output(data);
                continue;  // more may be waiting: read it before looking at the exit
            }
            if (got == 0 || (errno != EAGAIN && errno != EINTR)) hung_up = true;
        }
        int code = -1;
        const bool exited = (shell_->pidfd() < 0 || (p[2].revents & POLLIN)) && shell_->try_reap(&code);
        if (exited) {
            // What the shell wrote last is in the terminal's buffer still: hand it over first.
            for (int i = 0; i < 64; ++i) {
                const ssize_t got = ::read(fd, buf, sizeof buf);
                if (got <= 0) break;
                std::lock_guard lock(mutex_);
                for (const auto &c : clients_) c->output(std::string_view(buf, static_cast<size_t>(got)));
            }
            std::lock_guard lock(mutex_);
            finish(code);
            return;
        }
        if (hung_up && shell_->pidfd() < 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

void TerminalSession::finish(int exit_code) {
    exit_code_ = exit_code;
    ended_ = true;
    for (const auto &c : clients_) c->ended(exit_code);
}

std::string TerminalSession::attach(const std::shared_ptr<Client> &client) {
    std::lock_guard lock(mutex_);
    clients_.push_back(client);
    if (ended_) client->ended(exit_code_);
    return scrollback_;
}

void TerminalSession::detach(const std::shared_ptr<Client> &client) {
    std::lock_guard lock(mutex_);
    const auto before = clients_.size();
    clients_.erase(std::remove(clients_.begin(), clients_.end(), client), clients_.end());
    if (clients_.empty() && before > 0) unattached_since_ = std::chrono::steady_clock::now();
}

size_t TerminalSession::clients() const {
    std::lock_guard lock(mutex_);
    return clients_.size();
}

std::chrono::steady_clock::time_point TerminalSession::unattached_since() const {
    std::lock_guard lock(mutex_);
    return unattached_since_;
}

bool TerminalSession::write_input(std::string_view data, std::chrono::milliseconds wait) {
    if (ended_) return false;
    std::lock_guard lock(input_mutex_);  // two clients typing at once: each write whole
    return shell_->write_all(data, std::chrono::steady_clock::now() + wait);
}

bool TerminalSession::resize(unsigned short rows, unsigned short cols, bool redraw) {
    winsize size{};
    size.ws_row = rows;
    size.ws_col = cols;
    const int fd = shell_->output_fd();
    if (redraw && rows > 1) {
        winsize nudge = size;
        nudge.ws_row = static_cast<unsigned short>(rows - 1);
        ::ioctl(fd, TIOCSWINSZ, &nudge);
    }
    return ::ioctl(fd, TIOCSWINSZ, &size) == 0;
}

}  // namespace actionhost::host
