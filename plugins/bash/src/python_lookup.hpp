// The python interpreter of a prompt: what `which python` would print in that shell (common::find_on_path
// on the PATH the prompt carries, from the shell's directory, as its user).
#pragma once

#include <chrono>
#include <string>

#include <actionhost/common/process/shell_identity.hpp>

namespace actionhost::bash {

class PythonLookup {
  public:
    // Looks up afresh each time, except that "none on this PATH from this directory" is believed for
    // kNoneKept: with no python at all the search stats every PATH entry (~1 µs each), on every command.
    // A python found is found again by a search that stops at it, so a deleted or newly shadowed one
    // shows at once; one appearing where there was none, within kNoneKept. Not thread-safe: the
    // session's lock guards it.
    std::string find(const std::string &path, const std::string &working_dir, const common::ShellIdentity &who);

    static constexpr std::chrono::milliseconds kNoneKept{1000};

  private:
    std::string none_path_, none_dir_;
    std::chrono::steady_clock::time_point none_until_{};
};

}  // namespace actionhost::bash
