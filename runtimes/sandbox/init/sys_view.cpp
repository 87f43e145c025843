#include "sys_view.hpp"

#include <sys/stat.h>

namespace sandbox {

namespace {

const char *const kShared[] = {"devices/system/cpu", "devices/system/node"};

bool is_dir(const std::string &path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

SysTrees take_sys_trees(const std::vector<std::pair<std::string, std::string>> &cgroups) {
    SysTrees trees;
    const unsigned attrs = kReadOnly | kNoSuid | kNoDev | kNoExec;
    for (const char *shared : kShared) {
        const std::string path = std::string("/sys/") + shared;
        if (is_dir(path)) trees.emplace_back(shared, clone_tree(path, attrs));
    }
    for (const auto &[dir, name] : cgroups) {
        if (is_dir(dir)) trees.emplace_back(name.empty() ? "fs/cgroup" : "fs/cgroup/" + name, clone_tree(dir, attrs));
    }
    return trees;
}

void mount_sys_view(const std::string &target, SysTrees trees) {
    // Mount points first, in a tmpfs that is made read-only before anything is attached to it.
    DetachedMount sys = new_tmpfs("size=16k,mode=0555", kNoSuid | kNoDev | kNoExec);
    for (const auto &entry : trees) {
        const std::string &to = entry.first;
        for (size_t slash = to.find('/'); ; slash = to.find('/', slash + 1)) {
            make_dir_at(sys, to.substr(0, slash), 0555);
            if (slash == std::string::npos) break;
        }
    }
    set_attrs(sys, kReadOnly);
    attach(std::move(sys), target);
    for (auto &[to, tree] : trees) attach(std::move(tree), target + "/" + to);
}

}  // namespace sandbox
