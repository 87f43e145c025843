#include "run_as.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

namespace actionhost::vscode {
namespace {

std::optional<RunAs> lookup(const std::string &name) {
    struct passwd pw {};
    struct passwd *found = nullptr;
    std::vector<char> buf(16384);
    if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return std::nullopt;
    RunAs r;
    r.name = pw.pw_name;
    r.home = pw.pw_dir ? pw.pw_dir : "/";
    r.uid = pw.pw_uid;
    r.gid = pw.pw_gid;
    int n = 64;
    for (int attempt = 0; attempt < 4; ++attempt) {
        r.groups.assign(static_cast<size_t>(n), 0);
        int got = n;
        if (getgrouplist(r.name.c_str(), r.gid, r.groups.data(), &got) >= 0) {
            r.groups.resize(static_cast<size_t>(got));
            break;
        }
        n = got > n ? got : n * 2;
    }
    return r;
}

std::optional<RunAs> current_user() {
    struct passwd pw {};
    struct passwd *found = nullptr;
    std::vector<char> buf(16384);
    if (getpwuid_r(geteuid(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return std::nullopt;
    return lookup(pw.pw_name);
}

}  // namespace

RunAsDecision decide_run_as(const std::string &username, const std::optional<std::string> &runtime_username) {
    RunAsDecision d;
    auto self = current_user();
    std::string wanted = username.empty() && self ? self->name : username;
    bool is_self = self && self->name == wanted;
    bool allowed = is_self || wanted == "root" || wanted == "openhands" ||
                   (runtime_username && !runtime_username->empty() && *runtime_username == wanted);
    if (!allowed) {
        d.refusal = "user '" + wanted + "' is not allowed to run VS Code (allowed: root, openhands, $RUNTIME_USERNAME" +
                    (runtime_username ? "='" + *runtime_username + "'" : std::string(" (unset)")) +
                    ", or the host's own user)";
        return d;
    }
    if (is_self) {
        d.user = self;
        return d;
    }
    if (geteuid() != 0) {
        d.refusal = "user '" + wanted + "' differs from the host's user and the host is not root, so it cannot switch to it";
        return d;
    }
    auto other = lookup(wanted);
    if (!other) {
        d.refusal = "user '" + wanted + "' does not exist";
        return d;
    }
    other->switch_user = other->uid != geteuid();
    d.user = other;
    return d;
}

}  // namespace actionhost::vscode
