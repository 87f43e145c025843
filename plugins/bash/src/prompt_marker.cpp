#include "prompt_marker.hpp"


#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <actionhost/common/random.hpp>

namespace actionhost::bash {

PromptMarker::PromptMarker(std::string nonce)
    : nonce_(std::move(nonce)), begin_("###AH" + nonce_ + "PS1{"), end_("}AH" + nonce_ + "END###") {}

std::string PromptMarker::ps1() const {
    // \043 is '#', \037 is US: decoded by bash when it prints the prompt, never present literally in the
    // variable. The ${...:-}/${...-} forms stay quiet under `set -u`, even with PATH or PWD unset.
    return "\\043\\043\\043AH" + nonce_ + "PS1{$?\\037${!:-}\\037\\u\\037\\h\\037${__ah_sync:-}\\037${PWD-}\\037${PATH-}\\037${PWD-}}AH" +
           nonce_ + "END\\043\\043\\043";
}

std::string PromptMarker::prompt_setup() const {
    // PROMPT_COMMAND is one short assignment, parsed anew before each prompt: cheaper for bash than a
    // function call (about 25k instructions against 50k), and it needs no function in the environment.
    // Both are exported, so a nested `bash` shows the same prompt and its commands end too; a shell
    // whose __ah_ps1 was unset keeps the PS1 it has.
    return "__ah_ps1='" + ps1() + "'\nexport __ah_ps1\nPS1=$__ah_ps1\nPROMPT_COMMAND='PS1=${__ah_ps1-$PS1}'\nexport PROMPT_COMMAND\n";
}

namespace {

// OpenHands: int(float(str)) else -1.
int parse_int_field(std::string_view s) {
    if (s.empty()) return -1;
    const std::string str(s);
    char *end = nullptr;
    const double v = std::strtod(str.c_str(), &end);
    if (end == str.c_str() || *end != '\0' || !std::isfinite(v) || v > 2147483647.0 || v < -2147483648.0)
        return -1;
    return static_cast<int>(v);
}

}  // namespace

PromptInfo PromptMarker::parse_fields(std::string_view body) {
    std::string_view f[5];
    for (auto &field : f) {
        const size_t sep = body.find('\x1f');
        if (sep == std::string_view::npos) return PromptInfo{};
        field = body.substr(0, sep);
        body.remove_prefix(sep + 1);
    }
    // What is left is DIR US PATH US DIR, and either may hold US bytes. The longest DIR that both starts
    // and ends it is the shell's directory whenever PATH holds no US byte, whatever the directory's name.
    // When PATH holds US bytes, one built to match the directory's text next to them can mislead it (and
    // whoever builds one can as well print a whole prompt). The lengths whose prefix equals the suffix
    // are the borders of `rest`, found longest first from its prefix function in linear time: trying each
    // US position with a comparison was quadratic on a PATH made of US bytes (70 ms for a 128 KiB prompt).
    const std::string_view rest = body;
    const size_t n = rest.size();
    if (n < 2) return PromptInfo{};
    std::vector<uint32_t> border(n);  // border[i]: the longest proper border of rest[0, i]
    for (size_t i = 1, k = 0; i < n; ++i) {
        while (k > 0 && rest[i] != rest[k]) k = border[k - 1];
        if (rest[i] == rest[k]) ++k;
        border[i] = static_cast<uint32_t>(k);
    }
    for (size_t w = border[n - 1];; w = border[w - 1]) {
        if (2 * w + 2 <= n && rest[w] == '\x1f' && rest[n - w - 1] == '\x1f') {
            PromptInfo info;
            info.exit_code = parse_int_field(f[0]);
            info.pid = parse_int_field(f[1]);
            info.username = std::string(f[2]);
            info.hostname = std::string(f[3]);
            info.sync = std::string(f[4]);
            info.path = std::string(rest.substr(w + 1, n - 2 * w - 2));
            info.working_dir = std::string(rest.substr(0, w));
            return info;
        }
        if (w == 0) return PromptInfo{};
    }
}

std::string random_nonce() { return common::random_hex(8); }

std::string MarkerScanner::flush() {
    std::string out = inside_ ? begin_ + held_ : held_;
    held_.clear();
    inside_ = false;
    return out;
}

namespace detail {

size_t partial_marker_suffix(std::string_view s, std::string_view marker) {
    const size_t max = std::min(s.size(), marker.size() - 1);
    for (size_t len = max; len > 0; --len)
        if (s.substr(s.size() - len) == marker.substr(0, len)) return len;
    return 0;
}

}  // namespace detail
}  // namespace actionhost::bash
