#include "local_terminal.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace ahctl {
namespace {

// One terminal is raw at a time; what restores it must be reachable from a signal handler.
int g_fd = -1;
termios g_saved{};
bool g_raw = false;

void restore_now() {
    if (g_raw) tcsetattr(g_fd, TCSAFLUSH, &g_saved);  // async-signal-safe
    g_raw = false;
}

void on_fatal_signal(int sig) {
    restore_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

}  // namespace

RawTerminal::RawTerminal(int fd) {
    if (!isatty(fd) || tcgetattr(fd, &g_saved) != 0) return;
    g_fd = fd;
    termios raw = g_saved;
    cfmakeraw(&raw);
    // cfmakeraw clears OPOST: the remote terminal sends CR LF itself, as a local one would.
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    for (int sig : {SIGTERM, SIGHUP, SIGQUIT}) {
        struct sigaction sa {};
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
    // TCSANOW, not TCSAFLUSH: what was typed ahead, before the terminal was up, is kept and sent.
    if (tcsetattr(fd, TCSANOW, &raw) == 0) g_raw = true;
}

RawTerminal::~RawTerminal() { restore(); }

void RawTerminal::restore() { restore_now(); }

std::optional<std::pair<unsigned short, unsigned short>> terminal_size(int fd) {
    winsize w{};
    if (ioctl(fd, TIOCGWINSZ, &w) != 0 || w.ws_row == 0 || w.ws_col == 0) return std::nullopt;
    return std::make_pair(w.ws_row, w.ws_col);
}

DetachKeys::Result DetachKeys::feed(std::string_view typed) {
    constexpr char kCtrlP = 0x10, kCtrlQ = 0x11;
    Result r;
    for (char c : typed) {
        if (held_) {
            held_ = false;
            if (c == kCtrlQ) {
                r.detach = true;
                return r;
            }
            r.forward += kCtrlP;
            if (c == kCtrlP) {  // Ctrl-P Ctrl-P: the first goes through, the second may start the sequence
                held_ = true;
                continue;
            }
            r.forward += c;
            continue;
        }
        if (c == kCtrlP) held_ = true;
        else r.forward += c;
    }
    return r;
}

}  // namespace ahctl
