#include "idmapped_workspace.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "id_map.hpp"
#include "workspace_handover.hpp"

namespace sandbox {

namespace {

bool write_file(const std::string &path, const std::string &text) {
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

// A user namespace mapping the disk owner to the sandbox user's machine id and the rest of the sandbox
// range to itself (id_map.hpp, mount_id_map): its descriptor,
// or -1 (errno set). A child makes it and waits; P writes the maps, keeps the descriptor, ends the child.
int mapping_namespace(const IdmapRequest &r) {
    int ready[2], done[2];
    if (pipe2(ready, O_CLOEXEC) != 0) return -1;
    if (pipe2(done, O_CLOEXEC) != 0) {
        close(ready[0]);
        close(ready[1]);
        return -1;
    }
    const pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        close(ready[0]);
        close(done[1]);  // else its own copy would keep the pipe open: EOF is P's word to end
        char c = unshare(CLONE_NEWUSER) == 0 ? 'u' : 'x';
        (void)!write(ready[1], &c, 1);
        (void)!read(done[0], &c, 1);  // until P holds the namespace (or dies)
        _exit(0);
    }
    close(ready[1]);
    close(done[0]);
    char c = 0;
    int fd = -1;
    const std::string proc = "/proc/" + std::to_string(child);
    if (read(ready[0], &c, 1) == 1 && c == 'u' &&
        write_file(proc + "/uid_map", mount_id_map(r.disk_uid, r.kernel_uid, r.uid_base)) &&
        write_file(proc + "/gid_map", mount_id_map(r.disk_gid, r.kernel_gid, r.gid_base)))
        fd = open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC);
    const int e = errno;
    close(ready[0]);
    close(done[1]);  // the child ends
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    errno = e;
    return fd;
}

}  // namespace

int idmapped_workspace(int dir_fd, const std::string &path, const IdmapRequest &r, std::string &why) {
    // The owner's files all become the sandbox user's: none may be a file of elsewhere by another name, or
    // carry the owner's privilege.
    if (const std::string reason = reason_not_to_map(dir_fd); !reason.empty()) {
        why = reason;
        return -1;
    }
    const int userns = mapping_namespace(r);
    if (userns < 0) {
        why = std::string("no user namespace for the id mapping: ") + std::strerror(errno);
        return -1;
    }
    // Not recursive: a mount inside the workspace (another directory of the machine bound there) is not
    // the owner's to give; the sandbox sees the directory below it.
    const int tree = open_tree(dir_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
    if (tree < 0) {
        why = "open_tree " + path + ": " + std::strerror(errno);
        close(userns);
        return -1;
    }
    struct mount_attr attr {};
    attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    attr.userns_fd = static_cast<__u64>(userns);
    const int rc = mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof attr);
    const int e = errno;
    close(userns);
    if (rc != 0) {
        why = std::string("the kernel or the file system of ") + path + " cannot map ids on a mount (" + std::strerror(e) + ")";
        close(tree);
        return -1;
    }
    return tree;
}

}  // namespace sandbox
