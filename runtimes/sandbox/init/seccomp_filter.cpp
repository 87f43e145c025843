#include "seccomp_filter.hpp"

#include <errno.h>
#include <seccomp.h>
#include <sys/prctl.h>

#include <stdexcept>
#include <string>

#include <actionhost/common/syscall_policy.hpp>

namespace sandbox {

namespace syscalls = actionhost::common::syscalls;

namespace {

// The call's number for this build's libseccomp, or its x86-64 number when the library does not know
// the name yet; __NR_SCMP_ERROR when the call does not exist here (an i386-era name on x86-64).
int resolve(const syscalls::Rule &rule) {
    const int nr = seccomp_syscall_resolve_name(rule.name.c_str());
    if (nr != __NR_SCMP_ERROR) return nr;
#if defined(__x86_64__)
    if (rule.x86_64_number >= 0) return rule.x86_64_number;
#endif
    return __NR_SCMP_ERROR;
}

scmp_arg_cmp comparison(const syscalls::ArgTest &t) {
    switch (t.op) {
        case syscalls::ArgTest::Equal: return scmp_arg_cmp{t.index, SCMP_CMP_EQ, t.value, 0};
        case syscalls::ArgTest::NotEqual: return scmp_arg_cmp{t.index, SCMP_CMP_NE, t.value, 0};
        case syscalls::ArgTest::MaskedEqual: return scmp_arg_cmp{t.index, SCMP_CMP_MASKED_EQ, t.mask, t.value};
    }
    return scmp_arg_cmp{t.index, SCMP_CMP_EQ, t.value, 0};
}

}  // namespace

void install_seccomp_filter(FilterScope scope) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw std::runtime_error("PR_SET_NO_NEW_PRIVS failed");
    const syscalls::Policy policy =
        syscalls::sandbox_policy(scope == FilterScope::Full ? syscalls::Scope::Full : syscalls::Scope::ModeBitsOnly);
    const uint32_t default_action = policy.default_allow ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(static_cast<uint32_t>(policy.default_error));
    // Other ABIs (x32, ia32) are killed: only the native architecture is added (bad-arch action).
    scmp_filter_ctx ctx = seccomp_init(default_action);
    if (!ctx) throw std::runtime_error("seccomp_init failed");
    for (const syscalls::Rule &rule : policy.rules) {
        const uint32_t action = rule.allow ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(static_cast<uint32_t>(rule.error));
        if (action == default_action) continue;  // libseccomp refuses a rule that repeats the default
        const int nr = resolve(rule);
        if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
        scmp_arg_cmp args[6];
        unsigned count = 0;
        for (const auto &t : rule.args)
            if (count < 6) args[count++] = comparison(t);
        const int rc = seccomp_rule_add_array(ctx, action, nr, count, args);
        if (rc != 0) {
            seccomp_release(ctx);
            throw std::runtime_error("seccomp rule for " + rule.name + " refused: " + std::to_string(rc));
        }
    }
    const int rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) throw std::runtime_error("seccomp_load failed: " + std::to_string(rc));
}

}  // namespace sandbox
