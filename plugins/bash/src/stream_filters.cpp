#include "stream_filters.hpp"

#include "actionhost/common/utf8.hpp"

namespace actionhost::bash {

void AnsiStripper::feed(std::string_view in, std::string &out) {
    for (size_t i = 0; i < in.size(); ++i) {
        if (state_ == State::Text) {  // fast path: copy up to the next ESC in one go
            const size_t esc = in.find('\x1b', i);
            out.append(in.substr(i, (esc == std::string_view::npos ? in.size() : esc) - i));
            if (esc == std::string_view::npos) return;
            i = esc;
        }
        const char ch = in[i];
        const unsigned char c = static_cast<unsigned char>(ch);
        switch (state_) {
            case State::Text:
                if (c == 0x1b) state_ = State::Esc;
                else out += ch;
                break;
            case State::Esc:
                if (c == '[') state_ = State::Csi;
                else if (c == ']') state_ = State::Osc;
                else if (c >= 0x20 && c <= 0x2f) state_ = State::EscIntermediate;  // ESC ( B
                else state_ = State::Text;  // two-byte sequence such as ESC = or ESC 7
                break;
            case State::EscIntermediate:
                if (c < 0x20 || c > 0x2f) state_ = State::Text;  // the final byte ends it
                break;
            case State::Csi:
                if (c >= 0x40 && c <= 0x7e) state_ = State::Text;
                break;
            case State::Osc:
                if (c == 0x07) state_ = State::Text;
                else if (c == 0x1b) state_ = State::OscEsc;
                break;
            case State::OscEsc:
                if (c == '\\') state_ = State::Text;
                else if (c != 0x1b) state_ = State::Osc;
                break;
        }
    }
}

void Utf8Chunker::feed(std::string_view in, std::string &out) {
    if (carry_.empty()) {
        const size_t n = common::utf8_complete_prefix(in);
        const std::string_view whole = in.substr(0, n);
        if (common::is_valid_utf8(whole)) out.append(whole);
        else out += common::sanitize_utf8(whole);
        carry_.assign(in.substr(n));
    } else {
        std::string joined = std::move(carry_);
        carry_.clear();
        joined.append(in);
        feed(joined, out);
        return;
    }
    // A well-formed stream never holds back more than 3 bytes; anything longer is garbage to flush.
    if (carry_.size() > 3) flush(out);
}

void Utf8Chunker::flush(std::string &out) {
    if (carry_.empty()) return;
    out += common::sanitize_utf8(carry_);
    carry_.clear();
}

void CrLfNormalizer::feed(std::string_view in, std::string &out) {
    if (!pending_cr_ && in.find('\r') == std::string_view::npos) {
        out.append(in);
        return;
    }
    for (char c : in) {
        if (pending_cr_) {
            pending_cr_ = false;
            if (c == '\n') {
                out += '\n';
                continue;
            }
            out += '\r';
        }
        if (c == '\r') pending_cr_ = true;
        else out += c;
    }
}

void CrLfNormalizer::flush(std::string &out) {
    if (pending_cr_) out += '\r';
    pending_cr_ = false;
}

std::string OutputNormalizer::feed(std::string_view raw) {
    std::string no_escapes;
    no_escapes.reserve(raw.size());
    ansi_.feed(raw, no_escapes);
    std::string text;
    text.reserve(no_escapes.size());
    utf8_.feed(no_escapes, text);
    std::string out;
    out.reserve(text.size());
    crlf_.feed(text, out);
    return out;
}

std::string OutputNormalizer::flush() {
    std::string text;
    utf8_.flush(text);
    std::string out;
    crlf_.feed(text, out);
    crlf_.flush(out);
    return out;
}

}  // namespace actionhost::bash
