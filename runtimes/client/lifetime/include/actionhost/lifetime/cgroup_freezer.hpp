// The cgroup freezer of one group directory, v1 (freezer.state) or v2 (cgroup.freeze): what pauses a
// sandbox's groups (runtimes/sandbox/init/cgroups.hpp) and a local host's freezer group
// (runtimes/local/host_freezer.hpp) when their idle timeout says so, and thaws them.
#pragma once

#include <string>

namespace actionhost::lifetime {

bool cgroup_has_freezer(const std::string &dir);
// Asks the group to freeze: false when it has no freezer or the write failed. Returns once asked; v1
// passes through FREEZING on its own.
bool freeze_cgroup(const std::string &dir);
// Lets the group run again (so that a SIGKILL sent to its processes takes effect, too). Best effort.
void thaw_cgroup(const std::string &dir);
// FROZEN or FREEZING (v1), "1" (v2).
bool cgroup_frozen(const std::string &dir);

}  // namespace actionhost::lifetime
