// The framing between the host and its helper processes (the policy worker, the plugin workers): frames
// of a 4-byte length (host order; both ends are this machine's) then that many bytes, over a socketpair.
// Each side's messages are JSON; a message may be followed by one raw frame of bytes (a plugin's
// observation or output, which need not be UTF-8 and is not worth escaping).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include <actionhost/common/result.hpp>

namespace actionhost::host {

inline constexpr size_t kMaxFrame = 64u << 20;  // an action envelope is at most what the API takes

common::Status write_frame(int fd, const std::string &payload);
// A message and the raw frame that goes with it, in one write: two threads writing messages on one
// socket (each under the writer's lock) never interleave a message with another's bytes.
common::Status write_frames(int fd, const std::string &message, std::string_view raw);
// Waits until `deadline` (nullopt: without one). The error says "timeout", "closed" or the OS's reason.
common::Result<std::string> read_frame(int fd, std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace actionhost::host
