#include "sys/user_init.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "sys/run_command.hpp"
#include <actionhost/common/user_entry.hpp>

namespace actionhost::host {

namespace fs = std::filesystem;

namespace {

// An administration command (useradd): found on PATH, else in /usr/sbin or /sbin.
int run(std::vector<std::string> argv) { return run_command(std::move(argv), {{"/usr/sbin", "/sbin"}}); }

// Appends `name` to /etc/passwd with a group of its own (gid = uid, added to /etc/group unless that gid
// exists) and makes its home. 0, or -1 when /etc/passwd or /etc/group cannot be written.
int add_passwd_entry(const std::string &name, int uid, const std::string &home, const std::string &shell) {
    const gid_t gid = static_cast<gid_t>(uid);
    if (::getgrgid(gid) == nullptr) {
        FILE *g = std::fopen("/etc/group", "ae");
        if (g == nullptr) return -1;
        std::string n = name, pwd = "x";
        char *no_members[] = {nullptr};
        group gr{n.data(), pwd.data(), gid, no_members};
        const int rc = ::putgrent(&gr, g);
        if (std::fclose(g) != 0 || rc != 0) return -1;
    }
    FILE *f = std::fopen("/etc/passwd", "ae");
    if (f == nullptr) return -1;
    std::string n = name, pwd = "x", gecos, h = home, sh = shell;
    passwd pw{n.data(), pwd.data(), static_cast<uid_t>(uid), gid, gecos.data(), h.data(), sh.data()};
    const int rc = ::putpwent(&pw, f);
    if (std::fclose(f) != 0 || rc != 0) return -1;
    std::error_code ec;
    fs::create_directories(home, ec);
    if (::chown(home.c_str(), static_cast<uid_t>(uid), gid) != 0 || ::chmod(home.c_str(), 0750) != 0) return -1;
    return 0;
}

void chown_tree(const fs::path &root, uid_t uid, gid_t gid) {
    ::lchown(root.c_str(), uid, gid);
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        ::lchown(it->path().c_str(), uid, gid);
    }
}

}  // namespace

common::Result<UserInit> init_user_and_working_dir(const std::string &username, int user_id, const std::string &working_dir) {
    UserInit r{user_id, ""};
    const char *env_user = std::getenv("USER");
    if (env_user && username == env_user && username != "root" && username != "openhands") {
        r.note = "running as the current user " + username + "; no user set-up";
        return r;
    }
    const bool root = geteuid() == 0;
    if (username != "root") {
        if (const auto user = common::user_by_name(username)) {
            if (static_cast<int>(user->uid) != user_id) {
                r.note = "user " + username + " exists with uid " + std::to_string(user->uid) + "; using it";
                r.user_id = static_cast<int>(user->uid);
            }
        } else if (!root) {
            r.note = "user " + username + " does not exist and the host is not root; actions run as the current user";
        } else {
            // As OpenHands: passwordless sudo for the sudo group, then the user in group sudo. Unlike
            // OpenHands (-g root), its primary group is one of its own (-U): a user in group root can
            // read and write everything of group root, and in a container without a user namespace a
            // file it makes setgid is setgid root on the machine too.
            const bool have_sudo_group = getgrnam("sudo") != nullptr;
            // Once: a host started again on the same machine (the local runtime as root) adds no second line.
            constexpr const char *kSudoRule = "%sudo ALL=(ALL) NOPASSWD:ALL";
            if (fs::exists("/etc/sudoers")) {
                std::ifstream current("/etc/sudoers");
                const std::string text{std::istreambuf_iterator<char>(current), std::istreambuf_iterator<char>()};
                if (text.find(kSudoRule) == std::string::npos) std::ofstream("/etc/sudoers", std::ios::app) << kSudoRule << "\n";
            }
            // The login shell is useradd's default for the image (OpenHands names one; docs/compat.md).
            // A group of the user's name already there is taken as it is (useradd -U would refuse it).
            std::vector<std::string> cmd = {"useradd", "-rm", "-d", "/home/" + username};
            if (getgrnam(username.c_str()) != nullptr) cmd.insert(cmd.end(), {"-g", username});
            else cmd.push_back("-U");
            if (have_sudo_group) cmd.insert(cmd.end(), {"-G", "sudo"});
            cmd.insert(cmd.end(), {"-u", std::to_string(user_id), username});
            int rc = run(cmd);
            // An image without shadow's useradd (busybox, Alpine, distroless): the entry useradd would
            // write (its default shell, /bin/sh), through glibc's putpwent, and the home directory.
            if (rc == -1) rc = add_passwd_entry(username, user_id, "/home/" + username, "/bin/sh");
            if (rc != 0) return common::fail("could not create user " + username + " (useradd exited with " + std::to_string(rc) + ")");
            r.note = "created user " + username + " with uid " + std::to_string(user_id);
        }
    }
    const mode_t old = ::umask(002);
    std::error_code ec;
    fs::create_directories(working_dir, ec);
    ::umask(old);
    if (!fs::is_directory(working_dir, ec)) return common::fail("cannot create the working directory " + working_dir);
    if (root) {
        const auto user = common::user_by_name(username);
        // OpenHands' SANDBOX_GROUP_ID, else the user's own group (OpenHands: root).
        const char *gid_env = std::getenv("SANDBOX_GROUP_ID");
        if (user) {
            const gid_t gid = gid_env && *gid_env ? static_cast<gid_t>(std::atoi(gid_env)) : user->gid;
            chown_tree(working_dir, user->uid, gid);
        }
        struct stat st{};
        if (::stat(working_dir.c_str(), &st) == 0) ::chmod(working_dir.c_str(), st.st_mode | S_IRGRP | S_IWGRP);
    }
    return r;
}

}  // namespace actionhost::host
