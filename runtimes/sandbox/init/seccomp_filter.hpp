// The seccomp filter of the sandbox's processes (libseccomp): everything allowed except what a
// workload never needs and a container escape would (mounts, modules, kexec, namespaces, keyrings,
// bpf, clock changes...), answered with EPERM — Docker's default profile in spirit, as a deny list.
#pragma once

namespace sandbox {

// Installs the filter on the calling thread (and what it execs). Sets no_new_privs. Throws on failure.
void install_seccomp_filter();

}  // namespace sandbox
