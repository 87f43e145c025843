// The seccomp profile the docker backend hands the engine: the sandbox runtime's policy in the engine's
// JSON, with the OCI spec's order for mask comparisons (value = the mask, valueTwo = the masked value).
#include <gtest/gtest.h>

#include <errno.h>
#include <sys/stat.h>

#include "seccomp_profile.hpp"

using nlohmann::json;

TEST(DockerSeccompProfile, ThePolicyInTheEnginesFormat) {
    const json p = docker::seccomp_profile();
    EXPECT_EQ(p["defaultAction"], "SCMP_ACT_ERRNO");
    EXPECT_EQ(p["defaultErrnoRet"], ENOSYS);
    EXPECT_FALSE(p.contains("architectures"));  // the engine's own architecture only
    ASSERT_TRUE(p["syscalls"].is_array());
    const json &plain = p["syscalls"][0];
    EXPECT_EQ(plain["action"], "SCMP_ACT_ALLOW");
    auto names = plain["names"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(names.begin(), names.end(), "read"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "mount"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "chmod"), names.end());  // chmod only with conditions
    bool chmod_setuid_refused = false, mount_refused = false;
    for (const auto &entry : p["syscalls"]) {
        if (entry["names"] == json::array({"mount"})) mount_refused = entry["action"] == "SCMP_ACT_ERRNO" && entry["errnoRet"] == EPERM;
        if (entry["names"] != json::array({"chmod"}) || entry["action"] != "SCMP_ACT_ERRNO") continue;
        const json &test = entry["args"][0];
        if (test["op"] == "SCMP_CMP_MASKED_EQ" && test["index"] == 1 && test["value"] == S_ISUID && test["valueTwo"] == S_ISUID)
            chmod_setuid_refused = entry["errnoRet"] == EPERM;
    }
    EXPECT_TRUE(chmod_setuid_refused) << p.dump(1);
    EXPECT_TRUE(mount_refused);
}
