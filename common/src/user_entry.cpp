#include "actionhost/common/user_entry.hpp"

#include <grp.h>
#include <pwd.h>

#include <cerrno>
#include <vector>

namespace actionhost::common {

namespace {

// Calls lookup(passwd*, buf, size, result*) with a buffer grown while it is too small (ERANGE).
template <typename Lookup>
std::optional<UserEntry> read_entry(Lookup lookup) {
    std::vector<char> buf(4096);
    for (int attempt = 0; attempt < 8; ++attempt) {
        passwd pw{};
        passwd *found = nullptr;
        const int rc = lookup(&pw, buf.data(), buf.size(), &found);
        if (rc == ERANGE) {
            buf.resize(buf.size() * 4);
            continue;
        }
        if (rc != 0 || found == nullptr) return std::nullopt;
        UserEntry e;
        e.name = pw.pw_name ? pw.pw_name : "";
        e.uid = pw.pw_uid;
        e.gid = pw.pw_gid;
        e.home = pw.pw_dir ? pw.pw_dir : "";
        e.shell = pw.pw_shell ? pw.pw_shell : "";
        return e;
    }
    return std::nullopt;
}

}  // namespace

std::optional<UserEntry> user_by_name(const std::string &name) {
    return read_entry([&](passwd *pw, char *buf, size_t size, passwd **found) {
        return ::getpwnam_r(name.c_str(), pw, buf, size, found);
    });
}

std::optional<UserEntry> user_by_uid(uid_t uid) {
    return read_entry([&](passwd *pw, char *buf, size_t size, passwd **found) {
        return ::getpwuid_r(uid, pw, buf, size, found);
    });
}

std::vector<gid_t> group_list(const UserEntry &user) {
    int n = 64;
    std::vector<gid_t> groups;
    for (int attempt = 0; attempt < 4; ++attempt) {  // getgrouplist says how many it needs when short
        groups.assign(static_cast<size_t>(n), 0);
        int got = n;
        if (getgrouplist(user.name.c_str(), user.gid, groups.data(), &got) >= 0) {
            groups.resize(static_cast<size_t>(got));
            return groups;
        }
        n = got > n ? got : n * 2;
    }
    return {};
}

}  // namespace actionhost::common
