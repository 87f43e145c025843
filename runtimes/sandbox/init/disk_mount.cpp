#include "disk_mount.hpp"

#include <fcntl.h>
#include <linux/loop.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <actionhost/common/io/unique_fd.hpp>

namespace sandbox {

namespace {

[[noreturn]] void fail(const std::string &step) { throw std::runtime_error(step + ": " + std::strerror(errno)); }

using Fd = actionhost::common::io::UniqueFd;  // the one descriptor owner

struct LoopDevice {
    std::string path;
    Fd fd;  // open until the mount holds the device: autoclear detaches it at the last close
};

// A free loop device configured on `image_fd`, detaching itself once nothing uses it.
LoopDevice attach_loop(int image_fd) {
    Fd control(open("/dev/loop-control", O_RDWR | O_CLOEXEC));
    if (control.get() < 0) fail("the sandbox's disk needs loop devices: /dev/loop-control");
    // Another process may take the device GET_FREE named before we configure it: then the next one.
    for (int attempt = 0; attempt < 32; ++attempt) {
        const int n = ioctl(control.get(), LOOP_CTL_GET_FREE);
        if (n < 0) fail("no free loop device (LOOP_CTL_GET_FREE)");
        const std::string path = "/dev/loop" + std::to_string(n);
        Fd device(open(path.c_str(), O_RDWR | O_CLOEXEC));
        if (device.get() < 0) {
            if (errno == ENOENT) continue;  // not yet made by devtmpfs
            fail("cannot open " + path);
        }
        loop_config config{};
        config.fd = static_cast<__u32>(image_fd);
        config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        if (ioctl(device.get(), LOOP_CONFIGURE, &config) == 0) return {path, std::move(device)};
        if (errno != EBUSY) fail("cannot attach the sandbox's disk to " + path);
    }
    errno = EBUSY;
    fail("every free loop device was taken by another process meanwhile");
}

}  // namespace

void mount_sandbox_disk(const std::string &image, const std::string &dir) {
    // Ours alone: nothing mounted from here on reaches the machine's namespace.
    if (unshare(CLONE_NEWNS) != 0) fail("cannot make a mount namespace for the sandbox's disk");
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("cannot make the mount namespace private");
    Fd image_fd(open(image.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
    if (image_fd.get() < 0) fail("cannot open the sandbox's disk image " + image);
    LoopDevice device = attach_loop(image_fd.get());
    // The loop device holds the image now; once mounted, the mount holds the device, and closing our
    // descriptor leaves the mount its only user (autoclear detaches the device when it goes). A failed
    // mount: the close detaches it at once.
    if (mount(device.path.c_str(), dir.c_str(), "ext4", MS_NOSUID | MS_NODEV | MS_NOATIME, "discard") != 0)
        fail("cannot mount the sandbox's disk (" + device.path + ") at " + dir);
}

}  // namespace sandbox
