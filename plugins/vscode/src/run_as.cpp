#include "run_as.hpp"

#include <unistd.h>

#include <actionhost/common/user_entry.hpp>

namespace actionhost::vscode {
namespace {

std::optional<RunAs> lookup(const std::string &name) {
    const auto user = common::user_by_name(name);
    if (!user) return std::nullopt;
    RunAs r;
    r.name = user->name;
    r.home = user->home.empty() ? "/" : user->home;
    r.uid = user->uid;
    r.gid = user->gid;
    r.groups = common::group_list(*user);
    return r;
}

std::optional<RunAs> current_user() {
    const auto self = common::user_by_uid(geteuid());
    if (!self) return std::nullopt;
    return lookup(self->name);
}

}  // namespace

common::Result<RunAs> decide_run_as(const std::string &username, const std::optional<std::string> &runtime_username) {
    auto self = current_user();
    std::string wanted = username.empty() && self ? self->name : username;
    bool is_self = self && self->name == wanted;
    bool allowed = is_self || wanted == "root" || wanted == "openhands" ||
                   (runtime_username && !runtime_username->empty() && *runtime_username == wanted);
    if (!allowed)
        return common::fail("user '" + wanted + "' is not allowed to run VS Code (allowed: root, openhands, $RUNTIME_USERNAME" +
                            (runtime_username ? "='" + *runtime_username + "'" : std::string(" (unset)")) +
                            ", or the host's own user)");
    if (is_self) return *self;
    if (geteuid() != 0)
        return common::fail("user '" + wanted + "' differs from the host's user and the host is not root, so it cannot switch to it");
    auto other = lookup(wanted);
    if (!other) return common::fail("user '" + wanted + "' does not exist");
    other->switch_user = other->uid != geteuid();
    return *other;
}

}  // namespace actionhost::vscode
