// Which system calls a sandboxed workload may make: one policy, rendered as the `sandbox` runtime's
// libseccomp filter (runtimes/sandbox/init/seccomp_filter.cpp) and as the seccomp profile the `docker`
// runtime hands the engine (runtimes/docker/seccomp_profile.cpp), so the two backends refuse the same.
//
// An allow list with Docker's default profile as the reference: the calls it allows, with its argument
// conditions (clone without namespace flags, socket without AF_VSOCK, personality only for the five
// values it names), minus io_uring, plus refusals of our own (set-user-ID and set-group-ID mode bits,
// openat2). docs/security.md lists every difference from Docker's profile and why.
//
// Data only: no libseccomp here (the docker module does not link it). Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace actionhost::common::syscalls {

// One comparison of a call's argument, as seccomp compares: a rule holds when all its tests hold.
struct ArgTest {
    enum Op { Equal, NotEqual, MaskedEqual };
    unsigned index = 0;   // 0..5
    Op op = Equal;
    uint64_t value = 0;
    uint64_t mask = 0;    // MaskedEqual: (arg & mask) == value
};

struct Rule {
    std::string name;       // the call's name, as libseccomp and Docker's profiles spell it
    int x86_64_number = -1; // its number on x86-64 when libseccomp builds may not know the name yet
    bool allow = true;      // false: refused with `error`
    int error = 0;          // errno of a refusal
    std::vector<ArgTest> args;
};

struct Policy {
    bool default_allow = false;  // what a call no rule matches gets: allowed, or
    int default_error = 0;       // refused with this errno (ENOSYS: programs fall back, as for a new call
                                 // an older kernel lacks)
    std::vector<Rule> rules;
};

enum class Scope {
    Full,          // the allow list: everything not named is refused
    ModeBitsOnly,  // `[sandbox] seccomp = false`: everything allowed but set-user/group-id mode bits
};

// The policy of a sandbox's processes.
Policy sandbox_policy(Scope scope = Scope::Full);

}  // namespace actionhost::common::syscalls
