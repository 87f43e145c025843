#include "python_lookup.hpp"

namespace actionhost::bash {

std::string PythonLookup::find(const std::string &path, const std::string &working_dir, const common::ShellIdentity &who) {
    const auto now = std::chrono::steady_clock::now();
    if (now < none_until_ && path == none_path_ && working_dir == none_dir_) return "";
    std::string found = common::find_on_path("python", path, {working_dir, &who});
    if (found.empty()) {
        none_path_ = path;
        none_dir_ = working_dir;
        none_until_ = now + kNoneKept;
    } else {
        none_until_ = {};
    }
    return found;
}

}  // namespace actionhost::bash
