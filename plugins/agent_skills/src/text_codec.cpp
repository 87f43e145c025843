#include "text_codec.hpp"

#include <iconv.h>
#include <uchardet/uchardet.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <memory>

#include "actionhost/common/utf8.hpp"

namespace actionhost::agent_skills {

namespace {

constexpr size_t kDetectBytes = 1024 * 1024;  // the editor looks at the first 1 MB only

// UTF-8 validity with a word-at-a-time skip over the ASCII prefix (most source files are all ASCII);
// the rest goes through the shared validator.
bool valid_utf8(std::string_view s) {
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (w & 0x8080808080808080ULL) break;
    }
    while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
    return i == s.size() || common::is_valid_utf8(s.substr(i));
}

bool is_printable_ascii(unsigned char c) {
    return (c >= 32 && c <= 126) || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\b';
}

// Valid UTF-8 containing at least one non-ASCII character, allowing a sequence cut at the end (the
// sniffed chunk is a prefix of the file).
bool decodes_as_utf8_text(std::string_view chunk) {
    bool non_ascii = false;
    for (unsigned char c : chunk) non_ascii |= c >= 0x80;
    if (!non_ascii) return false;
    return common::is_valid_utf8(chunk.substr(0, common::utf8_complete_prefix(chunk)));
}

std::string detect_charset(std::string_view bytes) {
    uchardet_t ud = uchardet_new();
    if (ud == nullptr) return "";
    const std::string_view sample = bytes.substr(0, kDetectBytes);
    std::string out;
    if (uchardet_handle_data(ud, sample.data(), sample.size()) == 0) {
        uchardet_data_end(ud);
        const char *cs = uchardet_get_charset(ud);
        if (cs != nullptr) out = cs;
    }
    uchardet_delete(ud);
    return out;
}

// Converts with iconv; nullopt (and the failing byte offset) when the input is not convertible.
std::optional<std::string> convert(std::string_view in, const char *to, const char *from, size_t &bad_at) {
    iconv_t cd = iconv_open(to, from);
    if (cd == reinterpret_cast<iconv_t>(-1)) {
        bad_at = std::string::npos;
        return std::nullopt;
    }
    std::string out;
    out.resize(in.size() * 4 + 16);
    char *src = const_cast<char *>(in.data());
    size_t src_left = in.size();
    char *dst = out.data();
    size_t dst_left = out.size();
    bool ok = true;
    while (src_left > 0) {
        if (iconv(cd, &src, &src_left, &dst, &dst_left) == static_cast<size_t>(-1)) {
            if (errno == E2BIG) {
                const size_t used = out.size() - dst_left;
                out.resize(out.size() * 2);
                dst = out.data() + used;
                dst_left = out.size() - used;
                continue;
            }
            ok = false;
            bad_at = in.size() - src_left;
            break;
        }
    }
    iconv_close(cd);
    if (!ok) return std::nullopt;
    out.resize(out.size() - dst_left);
    return out;
}

std::string utf8_error(std::string_view bytes) {
    // Find the first byte where UTF-8 decoding fails, for a message in Python's words.
    size_t i = 0;
    while (i < bytes.size()) {
        const size_t rest = common::utf8_complete_prefix(bytes.substr(i, 4));
        size_t len = 1;
        const unsigned char c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0xF0) len = 4;
        else if (c >= 0xE0) len = 3;
        else if (c >= 0xC0) len = 2;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if (rest >= len && common::is_valid_utf8(bytes.substr(i, len))) {
            i += len;
            continue;
        }
        break;
    }
    char buf[160];
    const unsigned char bad = i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0;
    std::snprintf(buf, sizeof buf, "'utf-8' codec can't decode byte 0x%02x in position %zu: invalid start byte", bad, i);
    return buf;
}

// Python's universal newlines on read: "\r\n" and a lone "\r" both become "\n".
std::string normalise_newlines(std::string_view s, bool &all_crlf) {
    std::string out;
    out.reserve(s.size());
    size_t crlf = 0, lf = 0, cr = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '\r') {
            if (i + 1 < s.size() && s[i + 1] == '\n') {
                ++i;
                ++crlf;
            } else {
                ++cr;
            }
            out += '\n';
        } else {
            lf += c == '\n';
            out += c;
        }
    }
    all_crlf = crlf > 0 && lf == 0 && cr == 0;
    return out;
}


// chardet's "confidently some legacy encoding" for text without control characters: uchardet names a
// charset and iconv decodes the chunk with it. Control bytes (NUL etc.) never pass, so binary data that a
// single-byte code page would technically accept is not mistaken for text.
bool decodes_as_legacy_text(std::string_view chunk) {
    for (unsigned char c : chunk)
        if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\b' && c != 0x1b) || c == 0x7f) return false;
    const std::string charset = detect_charset(chunk);
    if (charset.empty() || charset == "ASCII" || charset == "UTF-8") return false;
    size_t bad_at = 0;
    auto out = convert(chunk, "UTF-8", charset.c_str(), bad_at);
    // A multi-byte encoding may have its last character cut by the 1024-byte sniff.
    return out.has_value() || (bad_at != std::string::npos && bad_at + 4 >= chunk.size());
}

}  // namespace

bool looks_binary(std::string_view chunk) {
    if (chunk.empty()) return false;
    size_t low = 0, high = 0;
    bool nul_or_ff = false;
    for (unsigned char c : chunk) {
        low += !is_printable_ascii(c);
        high += c < 127;
        nul_or_ff |= c == 0 || c == 0xff;
    }
    const double r1 = static_cast<double>(low) / static_cast<double>(chunk.size());
    const double r2 = static_cast<double>(high) / static_cast<double>(chunk.size());
    if (r1 > 0.90 && r2 > 0.90) return true;
    const bool likely_binary = (r1 > 0.3 && r2 < 0.05) || (r1 > 0.8 && r2 > 0.8);
    const bool decodable = decodes_as_utf8_text(chunk) || decodes_as_legacy_text(chunk);
    if (likely_binary) return !decodable;
    if (decodable) return false;
    return nul_or_ff;
}

common::Result<DecodedText> decode_text(std::string_view bytes) {
    DecodedText out;
    bool crlf = false;
    if (valid_utf8(bytes)) {
        out.encoding = "utf-8";
        if (bytes.find('\r') == std::string_view::npos) {
            out.text.assign(bytes);
        } else {
            out.text = normalise_newlines(bytes, crlf);
        }
        out.crlf = crlf;
        return out;
    }
    const std::string charset = detect_charset(bytes);
    if (charset.empty() || charset == "ASCII" || charset == "UTF-8") return common::fail(utf8_error(bytes));
    size_t bad_at = 0;
    auto utf8 = convert(bytes, "UTF-8", charset.c_str(), bad_at);
    if (!utf8) return common::fail("'" + charset + "' codec can't decode the file (detected encoding " + charset + ")");
    out.encoding = charset;
    out.text = normalise_newlines(*utf8, crlf);
    out.crlf = crlf;
    return out;
}

common::Result<std::string> encode_text(std::string_view text, const std::string &encoding, bool crlf) {
    std::string with_ends;
    if (crlf) {
        with_ends.reserve(text.size() + text.size() / 16);
        for (char c : text) {
            if (c == '\n') with_ends += '\r';
            with_ends += c;
        }
        text = with_ends;
    }
    if (encoding == "utf-8") return std::string(text);
    size_t bad_at = 0;
    auto out = convert(text, encoding.c_str(), "UTF-8", bad_at);
    if (!out) return common::fail("'" + encoding + "' codec can't encode the text: a character has no representation in " + encoding);
    return std::move(*out);
}

}  // namespace actionhost::agent_skills
