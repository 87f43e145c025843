// The user's own terminal while `ahctl shell`/`ahctl attach` runs: raw mode (every key goes to the
// remote terminal as typed: arrows, Ctrl-C, Ctrl-D; nothing echoed or edited locally), restored when the
// command ends — normally, by an exception, or by SIGTERM/SIGHUP/SIGQUIT.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ahctl {

class RawTerminal {
  public:
    // Puts `fd` in raw mode; a no-op for a descriptor that is no terminal.
    explicit RawTerminal(int fd);
    ~RawTerminal();  // restore()
    RawTerminal(const RawTerminal &) = delete;
    RawTerminal &operator=(const RawTerminal &) = delete;
    void restore();
};

// The size of the terminal on `fd` (rows, cols); nullopt when it is none.
std::optional<std::pair<unsigned short, unsigned short>> terminal_size(int fd);

// The detach sequence (Ctrl-P Ctrl-Q, as docker's): fed the keys typed, it says what to send and whether
// the sequence was completed. A Ctrl-P is held back until the next key shows what it starts.
class DetachKeys {
  public:
    struct Result {
        std::string forward;  // to send to the remote terminal
        bool detach = false;  // the sequence was typed (what came after it in the same read is dropped)
    };
    Result feed(std::string_view typed);

  private:
    bool held_ = false;
};

}  // namespace ahctl
