#include "actionhost/common/path_policy.hpp"

#include <filesystem>
#include <system_error>

namespace actionhost::common {

namespace {

// realpath of the longest existing prefix with the missing rest appended: a file about to be created
// resolves too. A path that cannot be resolved at all is judged as written, normalised.
std::string resolve(const std::string &path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    return ec ? std::filesystem::path(path).lexically_normal().string() : p.string();
}

bool under(const std::string &path, const std::string &root) {
    if (root == "/") return true;
    return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

}  // namespace

PathPolicy::PathPolicy(const std::string &spec, std::string scope, std::string setting)
    : scope_(std::move(scope)), setting_(std::move(setting)) {
    size_t i = 0;
    while (i <= spec.size()) {
        size_t j = spec.find(':', i);
        if (j == std::string::npos) j = spec.size();
        std::string root = spec.substr(i, j - i);
        if (!root.empty() && root.front() == '/') {
            root = resolve(root);
            while (root.size() > 1 && root.back() == '/') root.pop_back();
            roots_.push_back(root);
        }
        i = j + 1;
    }
}

Status PathPolicy::check(const std::string &abs_path) const {
    if (roots_.empty()) return ok();
    const std::string real = resolve(abs_path);
    for (const auto &r : roots_)
        if (under(real, r)) return ok();
    std::string list;
    for (const auto &r : roots_) list += (list.empty() ? "" : ", ") + r;
    return fail("The path " + abs_path + (real != abs_path ? " resolves to " + real + ", which is" : " is") +
                " outside the directories " + scope_ + ": " + list + (setting_.empty() ? "" : " (" + setting_ + ")") + ".");
}

}  // namespace actionhost::common
