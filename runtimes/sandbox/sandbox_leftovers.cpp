#include "sandbox_leftovers.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <actionhost/runtime_support/owned_dir.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <actionhost/runtime_support/remove_tree.hpp>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cgroups.hpp"

namespace actionhost::sandbox_runtime {

using namespace actionhost::runtime_support;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char *kOwnerFile = "/owner.json";
constexpr double kKillTimeoutS = 2.0;
constexpr time_t kFreshGroupS = 10;

std::string record_path(const std::string &state_dir, const std::string &session_id) {
    return kept_alive_record_path(state_dir, "sandbox", session_id);
}

// The groups of run directories that exist under TMPDIR (dead ones were just swept).
std::set<std::string> groups_with_a_directory() {
    std::set<std::string> out;
    const std::string root = temp_root();
    DIR *d = ::opendir(root.c_str());
    if (d == nullptr) return out;
    for (dirent *e = ::readdir(d); e != nullptr; e = ::readdir(d))
        if (std::strncmp(e->d_name, kRunDirPrefix, std::strlen(kRunDirPrefix)) == 0) out.insert(cgroup_of_run_dir(e->d_name));
    ::closedir(d);
    return out;
}

// A group made in the last seconds may be one a sandbox is joining this instant.
bool recently_made(const std::string &group) {
    const time_t now = std::time(nullptr);
    for (const auto &dir : sandbox::sandbox_cgroup_dirs(group)) {
        struct stat st{};
        if (::stat(dir.c_str(), &st) == 0 && now - st.st_mtime < kFreshGroupS) return true;
    }
    return false;
}

// Empty groups whose run directory is not here: a sandbox of an earlier version, one whose directory
// someone removed, or one of another TMPDIR that has ended. A group with processes is left alone (its
// sandbox may live under another TMPDIR). The creation lock keeps groups that are being made out, and
// a group made in the last seconds is left too (an earlier ah-sandbox-init takes no lock).
void remove_empty_groups_of_no_sandbox() {
    if (::geteuid() != 0) return;  // only root makes groups
    std::vector<std::string> candidates;
    const auto here = groups_with_a_directory();
    for (const auto &name : sandbox::sandbox_cgroup_names())
        if (!here.count(name) && !recently_made(name)) candidates.push_back(name);
    if (candidates.empty()) return;
    sandbox::CgroupCreationLock sweeping(sandbox::CgroupCreationLock::Sweeping);
    if (!sweeping.held()) return;  // starts keep coming: the next sweep will do
    for (const auto &name : candidates)
        if (sandbox::sandbox_cgroup_empty(name)) sandbox::kill_and_remove_cgroup(name, 0);
}

// Every record of `state_dir` whose sandbox ended.
void remove_dead_records(const std::string &state_dir, const std::function<void(const std::string &)> &ended) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(state_dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("sandbox-", 0) != 0 || name.size() < 21 || name.substr(name.size() - 13) != ".backend.json") continue;
        auto record = actionhost::common::read_json_object_file(e.path().string());
        if (!record) {
            fs::remove(e.path(), ec);  // unreadable: nothing can ever attach through it
            continue;
        }
        if (kept_alive_record_is_live(*record)) continue;
        const std::string run_dir = record->value("run_dir", "");
        const std::string cgroup = record->value("cgroup", "");
        if (!run_dir.empty() && dir_owner(run_dir) == DirOwner::Alive) continue;
        remove_sandbox_leftovers(run_dir, cgroup);
        fs::remove(e.path(), ec);
        if (ended) ended(name.substr(8, name.size() - 8 - 13));
    }
}

}  // namespace

std::string cgroup_of_run_dir(const std::string &run_dir) {
    const std::string base = fs::path(run_dir).filename().string();
    return "ah-" + base.substr(std::min(base.size(), std::strlen(kRunDirPrefix)));
}

void write_run_dir_owner(const std::string &run_dir, const std::string &state_dir, const std::string &session_id) {
    std::ofstream out(run_dir + kOwnerFile, std::ios::trunc);
    out << actionhost::common::dump_json(json{{"state_dir", state_dir}, {"session_id", session_id}});
}

void remove_sandbox_leftovers(const std::string &run_dir, const std::string &cgroup) {
    if (!cgroup.empty() && !sandbox::sandbox_cgroup_dirs(cgroup).empty()) sandbox::kill_and_remove_cgroup(cgroup, kKillTimeoutS);
    if (!run_dir.empty()) remove_tree(run_dir);
}

void reclaim_leftovers(const std::string &state_dir, bool thorough, const std::function<void(const std::string &)> &ended) {
    sweep_abandoned_dirs(kRunDirPrefix, [&](const std::string &run_dir) {
        const std::string cgroup = cgroup_of_run_dir(run_dir);
        if (!sandbox::sandbox_cgroup_dirs(cgroup).empty()) sandbox::kill_and_remove_cgroup(cgroup, kKillTimeoutS);
        // The record that named it, when it is one of `state_dir`'s.
        auto owner = actionhost::common::read_json_object_file(run_dir + kOwnerFile);
        if (!owner || owner->value("state_dir", "") != state_dir) return;
        const std::string sid = owner->value("session_id", "");
        const std::string path = record_path(state_dir, sid);
        auto record = actionhost::common::read_json_object_file(path);
        if (record && record->value("run_dir", "") == run_dir) {
            std::error_code ec;
            fs::remove(path, ec);
            if (ended) ended(sid);
        }
    });
    remove_empty_groups_of_no_sandbox();
    // A reboot ends every sandbox at once, and may have emptied TMPDIR: their records are then found
    // only by reading them all. The boot id is remembered per state directory.
    const std::string marker = state_dir + "/.sandbox-boot-id";
    std::string last;
    std::ifstream(marker) >> last;
    if (thorough || last != current_boot_id()) {
        remove_dead_records(state_dir, ended);
        std::error_code ec;
        if (fs::is_directory(state_dir, ec)) std::ofstream(marker, std::ios::trunc) << current_boot_id() << "\n";
    }
}

}  // namespace actionhost::sandbox_runtime
