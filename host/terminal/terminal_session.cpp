#include "terminal/terminal_session.hpp"

#include <pthread.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <actionhost/common/io/borrowed_descriptor.hpp>

#include <algorithm>
#include <array>

namespace actionhost::host {

// The reader's event loop: the terminal, the shell's pidfd (or, without one, a look every 200 ms) and
// close(), which stops the loop.
struct TerminalSession::Reader {
    explicit Reader(TerminalSession &s) : session(s), terminal(io, s.shell_->output_fd()), shell_exit(io, s.shell_->pidfd()), tick(io) {}

    void start() {
        read();
        wait_exit();
    }

    void read() {
        terminal.async_read_some(boost::asio::buffer(buf), [this](const boost::system::error_code &ec, size_t got) {
            // End of file or EIO: every process closed the terminal; it is read no more (the exit ends us).
            if (ec) return;
            deliver(std::string_view(buf.data(), got));
            read();
        });
    }

    void deliver(std::string_view data) {
        std::lock_guard lock(session.mutex_);
        session.scrollback_.append(data);
        if (session.scrollback_.size() > session.scrollback_bytes_)
            session.scrollback_.erase(0, session.scrollback_.size() - session.scrollback_bytes_);
        for (const auto &c : session.clients_) c->output(data);
    }

    // The pidfd is readable once the shell ended, and stays so: if it cannot be reaped then (never
    // expected), a second wait would not wake again (Asio's epoll waits are edge-triggered), so the looks
    // every 200 ms take over.
    void wait_exit(bool pidfd = true) {
        auto check = [this](const boost::system::error_code &ec) {
            if (ec) return;
            int code = -1;
            if (session.shell_->try_reap(&code)) return ended(code);
            wait_exit(false);
        };
        if (pidfd && shell_exit.is_open()) return shell_exit.async_wait(boost::asio::posix::stream_descriptor::wait_read, check);
        tick.expires_after(std::chrono::milliseconds(200));
        tick.async_wait(check);
    }

    void ended(int code) {
        // What the shell wrote last is in the terminal's buffer still: hand it over first.
        for (int i = 0; i < 64; ++i) {
            const ssize_t got = ::read(session.shell_->output_fd(), buf.data(), buf.size());
            if (got <= 0) break;
            deliver(std::string_view(buf.data(), static_cast<size_t>(got)));
        }
        std::lock_guard lock(session.mutex_);
        session.finish(code);
        io.stop();
    }

    TerminalSession &session;
    boost::asio::io_context io{1};
    common::io::BorrowedDescriptor terminal, shell_exit;
    boost::asio::steady_timer tick;
    std::array<char, 16384> buf;
};

TerminalSession::TerminalSession(std::string name, std::unique_ptr<common::ChildProcess> shell, size_t scrollback_bytes)
    : name_(std::move(name)), shell_(std::move(shell)), scrollback_bytes_(scrollback_bytes),
      unattached_since_(std::chrono::steady_clock::now()) {
    reader_ = std::make_unique<Reader>(*this);
    reader_thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "terminal");
        reader_->start();
        reader_->io.run();
    });
}

TerminalSession::~TerminalSession() { close(); }

void TerminalSession::close() {
    std::call_once(closed_, [this] {
        reader_->io.stop();
        reader_thread_.join();
        reader_.reset();  // the descriptors go back to shell_ unclosed
        shell_->kill_session();
        int code = -1;
        // Killed just now: reaped within moments; bounded so a process stuck in the kernel cannot hold us.
        for (int i = 0; i < 200 && !shell_->try_reap(&code); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::lock_guard lock(mutex_);
        if (!ended_) finish(code);
        clients_.clear();
    });
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
