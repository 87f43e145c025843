// Cell text in bounded memory. A cell may print 100 MB; the observation only ever shows
//   truncate_observation(rstrip(strip_ansi(everything printed)))
// (common/text.hpp), which depends on the first and last max_chars/2 characters alone. BoundedText computes
// exactly that result while keeping O(max_chars) bytes: ANSI sequences are stripped by a streaming state
// machine (a sequence may be split across two messages), a trailing whitespace run is held back until
// something non-blank follows it (rstrip), and only the head and a sliding tail window are stored.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "actionhost/common/text.hpp"

namespace actionhost::jupyter {

// The first `half` characters and a window of the last (max - half) characters of a stream of text, and
// how many characters went by. Characters are code points, as truncate_observation counts them; input is
// valid UTF-8 appended in whole characters.
class HeadTail {
  public:
    explicit HeadTail(size_t max_chars);
    void append(std::string_view text);
    // Records `n` characters that are not stored. Only valid right after the head is full and when at
    // least max - half characters will be appended afterwards (BoundedText's whitespace hand-over).
    void skip(size_t n);
    void append_from(const HeadTail &other);  // appends everything `other` represents
    void clear();
    size_t total_chars() const { return total_; }
    bool empty() const { return total_ == 0; }
    // truncate_observation(all appended text, max_chars)
    std::string str() const;

  private:
    void trim_rest(size_t keep_chars);
    size_t max_, half_, cap_;  // cap_ = max_ - half_: the window that keeps an untruncated text whole
    std::string head_;
    size_t head_chars_ = 0;
    std::string rest_;
    size_t rest_chars_ = 0;
    size_t total_ = 0;
};

class BoundedText {
  public:
    explicit BoundedText(size_t max_chars = common::kMaxObservationChars);
    void append(std::string_view raw);
    // truncate_observation(rstrip(strip_ansi(concatenation of every append)), max_chars)
    std::string finish() const;
    size_t raw_bytes() const { return raw_bytes_; }

  private:
    void append_plain(std::string_view text);
    enum class Ansi { Text, Esc, Charset, Csi, Osc, OscEsc };
    Ansi state_ = Ansi::Text;
    HeadTail committed_;
    HeadTail blank_run_;  // trailing whitespace not yet followed by anything else
    size_t raw_bytes_ = 0;
};

}  // namespace actionhost::jupyter
