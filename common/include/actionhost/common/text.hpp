// Small text rules shared by several actions.
#pragma once

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

// Text made safe inside HTML elements and attribute values (& < > " ').
std::string html_escape(std::string_view text);

// "[Errno 13] Permission denied: '<path>'": Python's OSError str(), as OpenHands' file tools show an OS
// error (the editor, the host's file viewer).
std::string os_error_text(int err, const std::string &path);

}  // namespace actionhost::common
