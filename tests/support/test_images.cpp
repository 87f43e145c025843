#include "support/test_images.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::testing {

namespace fs = std::filesystem;

namespace {

// What the Debian root holds; a change here makes a new tar (the name carries it).
const char *kDebianSuite = "bookworm";
const char *kDebianPackages = "python3-ipykernel";

std::string cache_dir() {
    const char *d = std::getenv("AH_TEST_IMAGE_CACHE");
    return d && *d ? d : "/var/tmp/actionhost-test-images";
}

}  // namespace

std::string make_busybox_rootfs(const std::string &dir) {
    const char *busybox = nullptr;
    for (const char *b : {"/bin/busybox", "/usr/bin/busybox"})
        if (::access(b, X_OK) == 0) busybox = b;
    if (busybox == nullptr) return "no busybox (apt-get install busybox-static)";
    std::error_code ec;
    for (const char *d : {"bin", "sbin", "usr/bin", "usr/sbin", "etc", "tmp", "root", "workspace", "proc", "sys", "dev", "run", "home", "var/tmp"})
        fs::create_directories(fs::path(dir) / d, ec);
    fs::copy_file(busybox, fs::path(dir) / "bin/busybox", fs::copy_options::overwrite_existing, ec);
    if (ec) return "cannot copy busybox: " + ec.message();
    ProcessResult list = run_process({busybox, "--list-full"}, 30);
    if (list.exit_code != 0) return "busybox --list-full failed: " + list.output;
    std::istringstream names(list.output);
    std::string rel;
    while (std::getline(names, rel)) {
        if (rel.empty() || rel == "bin/busybox") continue;
        const fs::path link = fs::path(dir) / rel;
        fs::create_directories(link.parent_path(), ec);
        const std::string up = rel.find('/') == rel.rfind('/') ? "../bin/busybox" : "../../bin/busybox";
        fs::create_symlink(rel.rfind("bin/", 0) == 0 ? "busybox" : up, link, ec);
    }
    write_file(fs::path(dir) / "etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n");
    write_file(fs::path(dir) / "etc/group", "root:x:0:\nnogroup:x:65534:\n");
    write_file(fs::path(dir) / "etc/hosts", "127.0.0.1 localhost\n");
    fs::permissions(fs::path(dir) / "tmp", fs::perms::all | fs::perms::sticky_bit, ec);
    fs::permissions(fs::path(dir) / "var/tmp", fs::perms::all | fs::perms::sticky_bit, ec);
    return "";
}

std::string debian_rootfs_tar(std::string &why_not) {
    const std::string dir = cache_dir();
    const std::string tar = dir + "/debian-" + kDebianSuite + "-minbase-" + kDebianPackages + ".tar";
    if (fs::exists(tar)) return tar;
    if (::access("/usr/bin/mmdebstrap", X_OK) != 0) {
        why_not = "no mmdebstrap to make the Debian image (apt-get install mmdebstrap)";
        return "";
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    const int lock = ::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
        why_not = "cannot lock " + dir + "/.lock";
        if (lock >= 0) ::close(lock);
        return "";
    }
    std::string out = tar;
    if (!fs::exists(tar)) {
        const std::string tmp = tar + ".tmp";
        // No recommends, no documentation: ~half the size, and faster to import.
        ProcessResult r = run_process({"/usr/bin/mmdebstrap", "--quiet", "--variant=minbase", std::string("--include=") + kDebianPackages,
                                       "--aptopt=APT::Install-Recommends \"false\"", "--dpkgopt=path-exclude=/usr/share/doc/*",
                                       "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*",
                                       "--format=tar", kDebianSuite, tmp},
                                      900);
        if (r.exit_code != 0) {
            why_not = "mmdebstrap failed (exit " + std::to_string(r.exit_code) + "): " + r.output.substr(r.output.size() > 3000 ? r.output.size() - 3000 : 0);
            out = "";
        } else {
            fs::rename(tmp, tar, ec);
            if (ec) {
                why_not = "cannot keep " + tar + ": " + ec.message();
                out = "";
            }
        }
        fs::remove(tmp, ec);
    }
    ::flock(lock, LOCK_UN);
    ::close(lock);
    return out;
}

std::string unpack_rootfs(const std::string &tar, const std::string &dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    ProcessResult r = run_process({"tar", "-C", dir, "--exclude=./dev/*", "-xf", tar}, 300);
    return r.exit_code == 0 ? "" : "tar -xf " + tar + " failed: " + r.output;
}

std::string bundle_dir() {
    const std::string d = build_path("dist");
    return fs::exists(d + "/actionhost/bin/actionhost") ? d : "";
}

}  // namespace actionhost::testing
