// The seccomp filter of the sandbox's processes (libseccomp): everything allowed except what a
// workload never needs and a container escape would (mounts, modules, kexec, namespaces, keyrings,
// bpf, clock changes...), answered with EPERM — Docker's default profile in spirit, as a deny list —
// and no set-user-ID or set-group-ID mode bits through chmod, open, creat or mknod (EPERM).
#pragma once

namespace sandbox {

enum class FilterScope {
    Full,          // the deny list below plus the mode-bit rules
    ModeBitsOnly,  // [sandbox] seccomp = false: only the rules that keep setuid files off the machine
};

// Installs the filter on the calling thread (and what it execs). Sets no_new_privs. Throws on failure.
// The set-user/group-id rules are in both scopes: turning the filter off for a workload that needs a
// refused call must not let it plant a setuid file that any local user could run outside.
void install_seccomp_filter(FilterScope scope = FilterScope::Full);

}  // namespace sandbox
