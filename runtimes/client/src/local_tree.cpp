#include "local_tree.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "actionhost/client/errors.hpp"

namespace actionhost::client::detail {

namespace fs = std::filesystem;

namespace {

class Fd {
  public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd &operator=(Fd &&o) noexcept {
        std::swap(fd_, o.fd_);
        return *this;
    }
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    bool ok() const { return fd_ >= 0; }

  private:
    int fd_;
};

[[noreturn]] void refuse(const std::string &what) { throw WireError(what); }

Fd open_beneath(int dir_fd, const std::string &relative, int flags) {
    open_how how{};
    how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return Fd(static_cast<int>(::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof how)));
}

std::string read_all(int fd, const std::string &name) {
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) refuse("Cannot copy " + name + ": not a regular file");
    std::string content;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) refuse("Cannot read " + name + ": " + std::strerror(errno));
        if (n == 0) break;
        content.append(buf, static_cast<size_t>(n));
    }
    return content;
}

std::string read_beneath(int dir_fd, const std::string &relative, const std::string &shown) {
    Fd fd = open_beneath(dir_fd, relative, O_RDONLY);
    if (!fd.ok() && errno == EXDEV)
        refuse("Refusing to copy " + shown + ": it is a symbolic link that leads out of the copied directory; nothing was copied");
    if (!fd.ok()) refuse("Cannot read " + shown + ": " + std::strerror(errno));
    return read_all(fd.get(), shown);
}

// The directory `relative` below `root_fd`, entered component by component without following links,
// created where missing.
Fd enter_dirs(int root_fd, const fs::path &relative, const std::string &root) {
    Fd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    fs::path walked;
    for (const auto &part : relative) {
        const std::string name = part.string();
        if (name.empty() || name == ".") continue;
        if (name == "..") refuse("Refusing an entry outside " + root + ": " + relative.string());
        walked /= part;
        if (::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
            refuse("Cannot create " + (fs::path(root) / walked).string() + ": " + std::strerror(errno));
        Fd next(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.ok())
            refuse("Refusing to write through " + (fs::path(root) / walked).string() + ": " +
                   (errno == ELOOP || errno == ENOTDIR ? std::string("it is a symbolic link or not a directory") : std::strerror(errno)));
        dir = std::move(next);
    }
    return dir;
}

Fd open_root(const std::string &root) {
    std::error_code ec;
    fs::create_directories(root, ec);
    Fd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.ok()) refuse("Cannot open the directory " + root + ": " + std::strerror(errno));
    return fd;
}

}  // namespace

std::vector<LocalFile> read_local_tree(const std::string &dir) {
    Fd root(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root.ok()) refuse("Cannot open the directory " + dir + ": " + std::strerror(errno));
    std::vector<LocalFile> files;
    std::error_code ec;
    // The iterator never descends through a directory link; such a link is read (below) like a file
    // link, and refused if it leads out.
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string rel = it->path().lexically_relative(dir).generic_string();
        const auto status = it->symlink_status(ec);
        if (ec) break;
        if (fs::is_directory(status)) {
            files.push_back({rel, "", true});
            continue;
        }
        if (fs::is_symlink(status)) {
            Fd target = open_beneath(root.get(), rel, O_PATH);
            if (!target.ok() && errno == EXDEV)
                refuse("Refusing to copy " + it->path().string() +
                       ": it is a symbolic link that leads out of the copied directory; nothing was copied");
            struct stat st{};
            if (target.ok() && ::fstat(target.get(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // content seen elsewhere
        } else if (!fs::is_regular_file(status)) {
            continue;  // sockets, fifos, devices: not copied
        }
        files.push_back({rel, read_beneath(root.get(), rel, it->path().string()), false});
    }
    if (ec) refuse("Cannot read the directory " + dir + ": " + ec.message());
    return files;
}

std::string read_local_file(const std::string &file) {
    const fs::path p = fs::absolute(file).lexically_normal();
    Fd parent(::open(p.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!parent.ok()) refuse("Cannot open the directory of " + file + ": " + std::strerror(errno));
    return read_beneath(parent.get(), p.filename().string(), file);
}

void write_local_file(const std::string &root, const std::string &relative, const std::string &content) {
    const fs::path rel(relative);
    Fd root_fd = open_root(root);
    Fd dir = enter_dirs(root_fd.get(), rel.parent_path(), root);
    const std::string name = rel.filename().string();
    const std::string shown = (fs::path(root) / rel).string();
    if (name.empty() || name == "." || name == "..") refuse("Refusing the entry " + relative);
    Fd out(::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!out.ok())
        refuse("Refusing to write " + shown + ": " +
               (errno == ELOOP ? std::string("it is a symbolic link") : std::strerror(errno)));
    struct stat st{};
    if (::fstat(out.get(), &st) != 0 || !S_ISREG(st.st_mode)) refuse("Refusing to write " + shown + ": not a regular file");
    if (st.st_nlink > 1) refuse("Refusing to write " + shown + ": it has other hard links, which would change too");
    if (::ftruncate(out.get(), 0) != 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
    for (size_t done = 0; done < content.size();) {
        const ssize_t n = ::write(out.get(), content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) refuse("Cannot write " + shown + ": " + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

void make_local_dir(const std::string &root, const std::string &relative) {
    Fd root_fd = open_root(root);
    enter_dirs(root_fd.get(), fs::path(relative), root);
}

}  // namespace actionhost::client::detail
