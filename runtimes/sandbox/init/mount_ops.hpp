// The mount operations the sandbox's root is assembled with: detached trees (open_tree, fsmount)
// attached by move_mount, so nothing is ever visible half-made and no outside directory is needed for a
// scratch mount. Every call throws std::runtime_error naming the step and errno. Runs inside the new
// user+mount namespace, single-threaded.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace sandbox {

// Mount attribute sets (MOUNT_ATTR_*).
enum MountAttrs : unsigned {
    kReadOnly = 1u << 0,
    kNoSuid = 1u << 1,
    kNoDev = 1u << 2,
    kNoExec = 1u << 3,
};

// A mount that is not attached anywhere yet (or a clone of one): closes its descriptor when destroyed.
class DetachedMount {
  public:
    DetachedMount() = default;
    explicit DetachedMount(int fd) : fd_(fd) {}
    DetachedMount(DetachedMount &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    DetachedMount &operator=(DetachedMount &&o) noexcept;
    DetachedMount(const DetachedMount &) = delete;
    DetachedMount &operator=(const DetachedMount &) = delete;
    ~DetachedMount();
    int fd() const { return fd_; }
    bool valid() const { return fd_ >= 0; }

  private:
    int fd_ = -1;
};

// A recursive copy of the mount tree at `path` (taken before anything is mounted over it), with `attrs`
// set on every mount of it. Locked submounts that refuse nosuid/nodev changes get read-only alone.
DetachedMount clone_tree(const std::string &path, unsigned attrs);
// The same for the directory `dir_fd` is open on (`path` only names it in errors): what was opened is
// what is cloned, whatever its name leads to by now.
DetachedMount clone_tree_of(int dir_fd, const std::string &path, unsigned attrs);
// The tree at `relative` inside a detached mount (e.g. one directory of a scratch tmpfs), with `attrs`.
DetachedMount clone_subtree(const DetachedMount &of, const std::string &relative, unsigned attrs);
// A fresh tmpfs with the given options ("size=64m,mode=0755"), not attached anywhere.
DetachedMount new_tmpfs(const std::string &options, unsigned attrs);
// A fresh filesystem of `type` made with `options` ({key, value}; an empty value is a flag), with `attrs`,
// not attached anywhere: an image's overlay ("lowerdir", "upperdir", "workdir", "userxattr").
DetachedMount new_filesystem(const std::string &type, const std::vector<std::pair<std::string, std::string>> &options,
                             unsigned attrs);
// Sets `attrs` on the (whole) detached mount.
void set_attrs(const DetachedMount &m, unsigned attrs);
// Attaches `m` at `target` (which must exist) and consumes it.
void attach(DetachedMount m, const std::string &target);
// Attaches `m` on the directory `dir_fd` is open on (O_PATH will do) and returns a descriptor of the
// attached mount's root (the caller's to close), e.g. to enter it with fchdir.
int attach_on(DetachedMount m, int dir_fd, const std::string &shown);

// Directory or empty file creation on paths being assembled (parents made as needed).
void make_dir(const std::string &path, mode_t mode = 0755);
void make_file(const std::string &path, mode_t mode = 0644);
// Directory or file creation relative to a detached mount's root. kKeepOwner: the creator owns it.
inline constexpr uid_t kKeepOwner = static_cast<uid_t>(-1);
void make_dir_at(const DetachedMount &m, const std::string &relative, mode_t mode, uid_t uid = kKeepOwner,
                 gid_t gid = static_cast<gid_t>(kKeepOwner));
void write_file_at(const DetachedMount &m, const std::string &relative, const std::string &text, mode_t mode = 0644);

}  // namespace sandbox
