#include "observation_text.hpp"

#include <algorithm>

namespace actionhost::bash {

namespace {

// Room beyond the limit so that removing echoed input and whitespace from the front still leaves the
// first half intact.
constexpr size_t kHeadSlack = 8192;
// Trailing whitespace kept back for the right-strip; beyond it, the oldest part is committed as text.
constexpr size_t kMaxPendingWhitespace = 65536;

// What Python's str.strip() removes, restricted to ASCII.
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
           (c >= '\x1c' && c <= '\x1f');
}

bool is_lead(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

size_t count_chars(std::string_view s) { return static_cast<size_t>(std::count_if(s.begin(), s.end(), is_lead)); }

// Byte offset where character number `n` starts (or s.size()).
size_t offset_of_char(std::string_view s, size_t n) {
    size_t seen = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (is_lead(s[i])) {
            if (seen == n) return i;
            ++seen;
        }
    }
    return s.size();
}

// Byte offset where the last `n` characters start.
size_t offset_of_last_chars(std::string_view s, size_t n) {
    if (n == 0) return s.size();
    size_t seen = 0;
    for (size_t i = s.size(); i > 0; --i) {
        if (is_lead(s[i - 1]) && ++seen == n) return i - 1;
    }
    return 0;
}

std::string_view lstrip(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && is_space(s[i])) ++i;
    return s.substr(i);
}

std::string_view rstrip(std::string_view s) {
    size_t e = s.size();
    while (e > 0 && is_space(s[e - 1])) --e;
    return s.substr(0, e);
}

// lstrip, removeprefix(echo.lstrip()), lstrip: OpenHands' _remove_command_prefix.
std::string_view strip_front(std::string_view s, std::string_view echo) {
    s = lstrip(s);
    echo = lstrip(echo);
    if (!echo.empty() && s.substr(0, echo.size()) == echo) s.remove_prefix(echo.size());
    return lstrip(s);
}

constexpr std::string_view kTruncationMarker = "\n[... Observation truncated due to length ...]\n";

}  // namespace

ObservationText::ObservationText(size_t limit_chars) : limit_(limit_chars), head_cap_(limit_chars + kHeadSlack) {}

void ObservationText::raise_limit(size_t limit_chars) {
    if (limit_chars <= limit_) return;
    // Only text still to come can be kept at the new size; an overflowed head stays as it is.
    if (total_cps_ <= head_cap_) head_cap_ = limit_chars + kHeadSlack;
    limit_ = limit_chars;
}

void ObservationText::clear() {
    started_ = false;
    head_.clear();
    tail_.clear();
    pending_ws_.clear();
    head_cps_ = tail_cps_ = total_cps_ = 0;
}

void ObservationText::append(std::string_view text) {
    if (!started_) {
        text = lstrip(text);
        if (text.empty()) return;
        started_ = true;
    }
    size_t last = text.size();
    while (last > 0 && is_space(text[last - 1])) --last;
    if (last == 0) {
        pending_ws_.append(text);
        if (pending_ws_.size() > kMaxPendingWhitespace) {
            const std::string older = pending_ws_.substr(0, pending_ws_.size() - kMaxPendingWhitespace / 2);
            pending_ws_.erase(0, older.size());
            commit(older);
        }
        return;
    }
    if (!pending_ws_.empty()) {
        commit(pending_ws_);
        pending_ws_.clear();
    }
    commit(text.substr(0, last));
    pending_ws_.assign(text.substr(last));
}

void ObservationText::append(ObservationText &&other) {
    if (!other.started_) return;
    if (other.total_cps_ <= other.head_cap_) {
        append(other.head_);
    } else {
        append(other.head_);
        append(kTruncationMarker);
        append(other.tail_);
    }
    append(other.pending_ws_);
    other.clear();
}

void ObservationText::commit(std::string_view text) {
    const size_t n = count_chars(text);
    if (head_cps_ < head_cap_) {
        const size_t room = head_cap_ - head_cps_;
        const size_t take = n <= room ? text.size() : offset_of_char(text, room);
        head_.append(text.substr(0, take));
        head_cps_ += std::min(n, room);
    }
    tail_.append(text);
    tail_cps_ += n;
    total_cps_ += n;
    trim_tail();
}

void ObservationText::trim_tail() {
    // Keep the last limit_/2 characters; trim only when twice that is held, so trimming stays linear.
    const size_t keep = limit_ / 2;
    if (tail_cps_ <= 2 * keep + 1024) return;
    const size_t cut = offset_of_last_chars(tail_, keep);
    tail_.erase(0, cut);
    tail_cps_ = keep;
}

std::string ObservationText::finish(std::string_view echo, bool truncate, size_t max_chars) const {
    if (!started_) return "";
    max_chars = std::min(max_chars, limit_);
    const size_t cap = truncate ? max_chars : limit_;
    const size_t half = cap / 2;
    if (total_cps_ <= head_cap_) {
        // Everything is here: apply OpenHands' rule to the whole text.
        const std::string_view content = rstrip(strip_front(head_, echo));
        if (count_chars(content) <= cap) return std::string(content);
        std::string out(content.substr(0, offset_of_char(content, half)));
        out += kTruncationMarker;
        out += content.substr(offset_of_last_chars(content, half));
        return out;
    }
    const std::string_view front = strip_front(head_, echo);
    std::string out(front.substr(0, offset_of_char(front, half)));
    out += kTruncationMarker;
    const std::string_view back = tail_;  // ends with a non-space character: trailing space is pending
    out += back.substr(offset_of_last_chars(back, half));
    return out;
}

}  // namespace actionhost::bash
