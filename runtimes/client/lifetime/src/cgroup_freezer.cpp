#include "actionhost/lifetime/cgroup_freezer.hpp"

#include <unistd.h>

#include <actionhost/common/io/small_file.hpp>

namespace actionhost::lifetime {

namespace {

bool exists(const std::string &path) { return ::access(path.c_str(), F_OK) == 0; }

// The one small-file reader and writer (common/io/small_file.hpp); cgroup.procs may list many pids.
bool write_text(const std::string &path, const std::string &text) { return actionhost::common::io::write_small_file(path, text); }
std::string read_text(const std::string &path) { return actionhost::common::io::read_small_file(path, 4 << 20); }

}  // namespace

bool cgroup_has_freezer(const std::string &dir) { return exists(dir + "/freezer.state") || exists(dir + "/cgroup.freeze"); }

bool freeze_cgroup(const std::string &dir) {
    if (exists(dir + "/freezer.state")) return write_text(dir + "/freezer.state", "FROZEN");
    if (exists(dir + "/cgroup.freeze")) return write_text(dir + "/cgroup.freeze", "1");
    return false;
}

void thaw_cgroup(const std::string &dir) {
    if (exists(dir + "/freezer.state")) write_text(dir + "/freezer.state", "THAWED");
    if (exists(dir + "/cgroup.freeze")) write_text(dir + "/cgroup.freeze", "0");
}

bool cgroup_frozen(const std::string &dir) {
    if (exists(dir + "/freezer.state")) {
        const std::string state = read_text(dir + "/freezer.state");
        return state.rfind("FROZEN", 0) == 0 || state.rfind("FREEZING", 0) == 0;
    }
    return exists(dir + "/cgroup.freeze") && read_text(dir + "/cgroup.freeze").rfind("1", 0) == 0;
}

}  // namespace actionhost::lifetime
