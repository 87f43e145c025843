#include "actionhost/runtime_support/remove_tree.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace actionhost::runtime_support {

namespace fs = std::filesystem;

namespace {

// Gives every directory below `root` (and root) its owner's read, write and search bits where they
// are missing. Entries are judged by lstat: a link to a directory is never entered.
void open_up_directories(const fs::path &root) {
    struct stat st{};
    if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
    if ((st.st_mode & S_IRWXU) != S_IRWXU) ::chmod(root.c_str(), (st.st_mode & 07777) | S_IRWXU);
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (int guard = 0; !ec && it != end && guard < 10'000'000; ++guard) {
        if (::lstat(it->path().c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_IRWXU) != S_IRWXU)
            ::chmod(it->path().c_str(), (st.st_mode & 07777) | S_IRWXU);  // before the iterator enters it
        it.increment(ec);
    }
}

}  // namespace

bool remove_tree(const std::string &path) {
    std::error_code ec;
    fs::remove_all(path, ec);
    if (!ec) return true;
    if (ec == std::errc::no_such_file_or_directory) return true;
    open_up_directories(path);
    ec.clear();
    fs::remove_all(path, ec);
    return !ec || ec == std::errc::no_such_file_or_directory;
}

}  // namespace actionhost::runtime_support
