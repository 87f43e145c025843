// The policy worker's protocol: frames of a 4-byte length (host order; both ends are this machine's)
// then that many bytes of JSON, over a socketpair.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <actionhost/common/result.hpp>

namespace actionhost::host {

inline constexpr size_t kMaxPolicyFrame = 64u << 20;  // an action envelope is at most what the API takes

common::Status write_frame(int fd, const std::string &payload);
// Waits until `deadline` (nullopt: without one). The error says "timeout", "closed" or the OS's reason.
common::Result<std::string> read_frame(int fd, std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace actionhost::host
