// The seccomp profile handed to the Docker engine with each container (HostConfig.SecurityOpt
// "seccomp=<profile>"): the sandbox runtime's own policy (common/syscall_policy.hpp) in the engine's JSON
// format, so a docker sandbox refuses what a `sandbox` one refuses — set-user/group-id mode bits above
// all, which Docker's default profile allows: the workspace is a directory of the machine, and a setuid
// file made there by root inside a container without a user namespace is a setuid-root file for every
// local user outside.
#pragma once

#include <nlohmann/json.hpp>

namespace docker {

// The profile as the engine reads it (defaultAction, defaultErrnoRet, architectures, syscalls). For the
// mask comparisons, "value" is the mask and "valueTwo" the masked value, as the OCI runtime spec has it.
nlohmann::json seccomp_profile();

}  // namespace docker
