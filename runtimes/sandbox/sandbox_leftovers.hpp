// What ended sandboxes leave on this machine, found and removed by whoever comes next.
//
// A sandbox is its run directory <TMPDIR>/ah-sandbox-<label>-XXXXXX, which its ah-sandbox-init holds
// owned (runtime_support/owned_dir.hpp) for as long as it lives, and its cgroups actionhost/ah-<label>-
// XXXXXX (named after the directory, so a dead directory names its groups). ah-sandbox-init removes the
// groups and its socket when it ends; the backend removes the directory. When ah-sandbox-init was
// SIGKILLed, or the client died before removing the directory (kill -9, Ctrl-C), or the machine
// rebooted, the sweep here does it: dead directories, their groups (any process left in them is
// killed: nobody can stop it otherwise), empty groups of no sandbox, and the kept-alive records that
// named them.
#pragma once

#include <functional>
#include <string>

namespace actionhost::sandbox_runtime {

inline constexpr const char *kRunDirPrefix = "ah-sandbox-";

// The run directory's cgroup name: "ah-" and what follows the prefix in its name.
std::string cgroup_of_run_dir(const std::string &run_dir);

// A kept-alive sandbox says which record is its own, so a sweep that finds it dead removes the record.
void write_run_dir_owner(const std::string &run_dir, const std::string &state_dir, const std::string &session_id);

// Kills whatever is left in `cgroup` and removes it, then the run directory. For a sandbox whose
// ah-sandbox-init has ended.
void remove_sandbox_leftovers(const std::string &run_dir, const std::string &cgroup);

// The sweep: dead run directories of this user under TMPDIR with their groups and records, then (root)
// empty groups of no sandbox. With `thorough` (or when the machine rebooted since the last sweep of
// `state_dir`), also every record of `state_dir` whose sandbox ended. `ended(session_id)` for each
// record of `state_dir` removed.
void reclaim_leftovers(const std::string &state_dir, bool thorough, const std::function<void(const std::string &)> &ended);

}  // namespace actionhost::sandbox_runtime
