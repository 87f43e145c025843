// Capabilities and the last process-wide locks of the sandbox (libcap).
//
// The sandbox's root holds at most Docker's default capability set: chown, dac_override, fowner,
// fsetid, kill, setgid, setuid, setpcap, net_bind_service, net_raw, sys_chroot, mknod, audit_write,
// setfcap — all of them meaningful only inside its own user namespace. Not sys_admin, sys_ptrace,
// net_admin, sys_module, sys_resource, dac_read_search, ... pid 1 ends with none at all.
#pragma once

namespace sandbox {

// Drops every capability outside Docker's default set from the bounding set (inherited by every
// process forked afterwards; root's exec gets at most this set). Throws on failure.
// `file_capabilities` false: CAP_SETFCAP goes too. Through an idmapped workspace (idmapped_workspace.hpp)
// a file capability set by a sandbox whose user is root would be stored for the machine's root —
// `setcap cap_setuid+ep` on a copy of python3, run by any user of the machine, is root. (Without it, a
// nested user namespace cannot map root either: the kernel asks CAP_SETFCAP for that.)
// `raw_network` false: CAP_NET_RAW goes too — a sandbox on the internet (user_net.hpp), whose network
// namespace has an interface out: a packet socket (AF_PACKET) writes frames past every nftables hook of
// the IP layer straight to pasta's tap (a red-team run reached the machine's own address that way), and
// the capability also sets SO_MARK (Linux 5.17+), the mark only the resolver guard's DNS may carry. Ping
// keeps working through ICMP datagram sockets (allow_ping_sockets).
void limit_bounding_set(bool file_capabilities, bool raw_network = true);

// pid 1 after its last fork of the main process: no capabilities (effective, permitted, inheritable,
// ambient, bounding), no way to gain any (no_new_privs), and not dumpable, so no process of the sandbox
// can ptrace it or read its memory or descriptors through /proc. Throws on failure.
void lock_down_pid1();

}  // namespace sandbox
