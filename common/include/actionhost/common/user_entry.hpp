// One user of the passwd database, copied out of it.
//
// getpwnam/getpwuid return a buffer shared by every thread of the process: the host looks its session
// user up on the main thread while plugins load on another and look users up too, and each call
// overwrites what the other is reading (ThreadSanitizer saw it between host/main.cpp and the bash
// plugin's init). These use getpw*_r into storage of their own: safe on any thread.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace actionhost::common {

struct UserEntry {
    std::string name;
    uid_t uid = 0;
    gid_t gid = 0;
    std::string home;   // pw_dir ("" when unset)
    std::string shell;  // pw_shell ("" when unset)
};

// std::nullopt when no such user exists (or the database cannot be read).
std::optional<UserEntry> user_by_name(const std::string &name);
std::optional<UserEntry> user_by_uid(uid_t uid);

// The groups `user` belongs to (getgrouplist: its primary group and every supplementary one), for a
// setgroups() after fork, where initgroups is not safe; empty when the group database cannot be read.
std::vector<gid_t> group_list(const UserEntry &user);

}  // namespace actionhost::common
