// The content of one `run` observation, collected while output streams in, in bounded memory.
//
// OpenHands builds the content as: the command's output, left-stripped, with the echoed input removed from
// its front, right-stripped, then cut to its first and last 15000 characters around a marker when longer
// than 30000 (OpenHands' CmdOutputObservation rule). This class keeps only what that rule can still need:
// the first `limit + slack` characters, the last `limit / 2` characters, a count of the rest, and trailing
// whitespace that a right-strip may yet remove. Text must be valid UTF-8 (see OutputNormalizer).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace actionhost::bash {

class ObservationText {
  public:
    // Characters that must be recoverable exactly: 30000 for ordinary observations; hidden ones are not
    // truncated by OpenHands, so they raise it (see raise_limit).
    explicit ObservationText(size_t limit_chars = 30000);

    void append(std::string_view text);
    // Moves `other`'s text to the end of this one (exact while `other` did not overflow).
    void append(ObservationText &&other);
    // Lets more of the text be kept exactly from now on (never lowers it).
    void raise_limit(size_t limit_chars);

    // True while nothing but whitespace has arrived.
    bool blank() const { return !started_; }
    // The content: `echo` (input the terminal may have echoed) removed from the front as OpenHands
    // does, stripped, and, when `truncate`, cut to `max_chars` by the 30000-character rule. Text beyond
    // what this object kept is always cut the same way, with `limit` in place of `max_chars`.
    std::string finish(std::string_view echo, bool truncate, size_t max_chars = 30000) const;

    void clear();
    // Characters received after the leading whitespace (for tests and memory checks).
    size_t total_chars() const { return total_cps_; }
    size_t retained_bytes() const { return head_.size() + tail_.size() + pending_ws_.size(); }

  private:
    void commit(std::string_view text);
    void trim_tail();

    size_t limit_;
    size_t head_cap_;  // characters kept from the front
    bool started_ = false;
    std::string head_;
    size_t head_cps_ = 0;
    std::string tail_;  // the last characters committed (at least limit_/2 of them once trimmed)
    size_t tail_cps_ = 0;
    size_t total_cps_ = 0;
    std::string pending_ws_;
};

}  // namespace actionhost::bash
