// Small text rules shared by several actions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace actionhost::common {

// OpenHands' 30000-character observation cap: first and last half kept around the truncation marker.
inline constexpr size_t kMaxObservationChars = 30000;
std::string truncate_observation(std::string_view content, size_t max_chars = kMaxObservationChars);

// Strips ANSI escape sequences (CSI, OSC and two-byte ESC sequences).
std::string strip_ansi(std::string_view text);

std::string rstrip(std::string_view text);

// Text a program controls, made safe to print on a user's terminal: escape sequences removed, other
// control characters (C0 but newline and tab, DEL, C1) shown as '?'. A directory named with an escape
// sequence cannot retitle, recolour or type into the terminal that prints it.
std::string printable_for_terminal(std::string_view text);

// A name a program controls (a file, a branch, a microagent, a session), made safe to print on one line
// of a user's terminal: every control character — C0 with newline and tab, DEL, C1 — shown as '?', so an
// escape sequence in a file name is seen for what it is and can neither drive the terminal (ESC]52 would
// write the clipboard) nor fake further lines of a listing. The one helper `ahctl` prints names through.
std::string printable_name(std::string_view name);

// A size as people write it: "1048576", "512k", "64m", "2g", "1t" (binary multiples; "kb", "kib", "mb",
// "mib", ... and upper case accepted). nullopt for anything else, zero, or a size past 2^63.
std::optional<uint64_t> parse_byte_size(std::string_view text);

// `text` with ASCII letters lower-cased, every other byte as it is (names, header names, hosts).
std::string ascii_lower(std::string_view text);

// Text made safe inside HTML elements and attribute values (& < > " ').
std::string html_escape(std::string_view text);

// "[Errno 13] Permission denied: '<path>'": Python's OSError str(), as OpenHands' file tools show an OS
// error (the editor, the host's file viewer).
std::string os_error_text(int err, const std::string &path);

}  // namespace actionhost::common
