// The seccomp filter of the sandbox's processes: the policy of common/syscall_policy.hpp (an allow list
// with Docker's default profile as the reference, set-user/group-id mode bits refused) loaded with
// libseccomp.
#pragma once

namespace sandbox {

enum class FilterScope {
    Full,          // the allow list and the mode-bit rules
    ModeBitsOnly,  // [sandbox] seccomp = false: only the rules that keep setuid files off the machine
};

// Installs the filter on the calling thread (and what it execs). Sets no_new_privs. Throws on failure.
// The set-user/group-id rules are in both scopes: turning the filter off for a workload that needs a
// refused call must not let it plant a setuid file that any local user could run outside.
void install_seccomp_filter(FilterScope scope = FilterScope::Full);

}  // namespace sandbox
