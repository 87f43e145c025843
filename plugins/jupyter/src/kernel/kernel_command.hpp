// The command that starts a kernel. Default: Debian's ipykernel under the system interpreter,
//   /usr/bin/python3 -m ipykernel_launcher -f {connection_file}
// Configurable (ACTIONHOST_KERNEL_CMD) as a JSON array of strings or as whitespace-separated words; the
// token {connection_file} is replaced by the connection file's path, and "-f <path>" is appended when the
// command has no such token (the kernelspec convention).
#pragma once

#include <actionhost/common/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actionhost::jupyter {

inline constexpr std::string_view kConnectionFileToken = "{connection_file}";

std::vector<std::string> default_kernel_command();

// Parses a configured command; fails, saying why, when it is empty or malformed.
common::Result<std::vector<std::string>> parse_kernel_command(std::string_view spec);

// The argv for one launch.
std::vector<std::string> expand_kernel_command(const std::vector<std::string> &command, const std::string &connection_file);

}  // namespace actionhost::jupyter
