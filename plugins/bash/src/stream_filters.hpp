// Stateful filters that turn raw terminal bytes into observation text one chunk at a time, so that a
// 100 MB output never has to be held in memory to be cleaned: escape sequences split across reads,
// multi-byte characters split across reads and CR LF pairs split across reads all come out right.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::bash {

// Removes ANSI escape sequences (CSI, OSC, ESC with intermediates such as ESC ( B, two-byte ESC
// sequences), like common::strip_ansi does for a whole text.
class AnsiStripper {
  public:
    void feed(std::string_view in, std::string &out);

  private:
    enum class State { Text, Esc, EscIntermediate, Csi, Osc, OscEsc };
    State state_ = State::Text;
};

// Re-chunks bytes at character boundaries and replaces invalid UTF-8 with U+FFFD.
class Utf8Chunker {
  public:
    // Appends the complete characters of `carry + in` to `out`, keeping an incomplete tail for later.
    void feed(std::string_view in, std::string &out);
    // Appends whatever is held back (sanitised): the stream ended or paused at a prompt.
    void flush(std::string &out);

  private:
    std::string carry_;
};

// Turns the terminal's CR LF line ends into LF; a lone CR is kept.
class CrLfNormalizer {
  public:
    void feed(std::string_view in, std::string &out);
    void flush(std::string &out);

  private:
    bool pending_cr_ = false;
};

// The three in the order that keeps each correct: escapes are removed from bytes, then characters are
// made whole and valid, then line ends are normalised.
class OutputNormalizer {
  public:
    std::string feed(std::string_view raw);
    std::string flush();

  private:
    AnsiStripper ansi_;
    Utf8Chunker utf8_;
    CrLfNormalizer crlf_;
};

}  // namespace actionhost::bash
