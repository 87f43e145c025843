#include "seccomp_profile.hpp"

#include <actionhost/common/syscall_policy.hpp>

namespace docker {

namespace syscalls = actionhost::common::syscalls;

namespace {

nlohmann::json arg_test(const syscalls::ArgTest &t) {
    switch (t.op) {
        case syscalls::ArgTest::Equal: return {{"index", t.index}, {"value", t.value}, {"op", "SCMP_CMP_EQ"}};
        case syscalls::ArgTest::NotEqual: return {{"index", t.index}, {"value", t.value}, {"op", "SCMP_CMP_NE"}};
        case syscalls::ArgTest::MaskedEqual:
            return {{"index", t.index}, {"value", t.mask}, {"valueTwo", t.value}, {"op", "SCMP_CMP_MASKED_EQ"}};
    }
    return nullptr;
}

}  // namespace

nlohmann::json seccomp_profile() {
    const syscalls::Policy policy = syscalls::sandbox_policy(syscalls::Scope::Full);
    // No "architectures": the engine's native one only, so the calls of other ABIs (x32, ia32) match no
    // rule of this profile and are refused.
    nlohmann::json profile = {{"defaultAction", policy.default_allow ? "SCMP_ACT_ALLOW" : "SCMP_ACT_ERRNO"}};
    if (!policy.default_allow) profile["defaultErrnoRet"] = policy.default_error;
    // Unconditional allows travel as one entry (the engine's own profile is written so); every other rule
    // as an entry of its own. A name the engine's libseccomp does not know is skipped by the engine.
    nlohmann::json plain = nlohmann::json::array(), entries = nlohmann::json::array();
    for (const syscalls::Rule &rule : policy.rules) {
        if (rule.allow && rule.args.empty()) {
            plain.push_back(rule.name);
            continue;
        }
        nlohmann::json entry = {{"names", {rule.name}}, {"action", rule.allow ? "SCMP_ACT_ALLOW" : "SCMP_ACT_ERRNO"}};
        if (!rule.allow) entry["errnoRet"] = rule.error;
        if (!rule.args.empty()) {
            entry["args"] = nlohmann::json::array();
            for (const auto &t : rule.args) entry["args"].push_back(arg_test(t));
        }
        entries.push_back(std::move(entry));
    }
    nlohmann::json all = nlohmann::json::array();
    all.push_back({{"names", plain}, {"action", "SCMP_ACT_ALLOW"}});
    for (auto &e : entries) all.push_back(std::move(e));
    profile["syscalls"] = std::move(all);
    return profile;
}

}  // namespace docker
