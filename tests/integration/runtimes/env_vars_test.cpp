// The sandbox environment through real backends (OpenHands' Runtime env handling and its
// tests/runtime/test_env_vars.py): SANDBOX_ENV_* and runtime_startup_env_vars at start, add_env_vars at
// any time, hostile values read back byte for byte from bash, a new shell (~/.bashrc), a paused and
// resumed sandbox, and the IPython kernel.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/sandbox_env.hpp>

#include "services_harness.hpp"
#include "support/temp_dir.hpp"

using namespace services_test;
using actionhost::client::Environment;
using nlohmann::json;

namespace {

// Values no naive quoting survives.
const Environment kHostile = {
    {"Q_QUOTES", "it's \"double\" and 'single' '' !! !$ !-1"},
    {"Q_NEWLINES", "line1\nline2\n\nline4\n"},
    {"Q_DOLLAR", "$HOME ${PATH} $(id -u) `id -u` $'x' \\$ %s %%"},
    {"Q_UNICODE", "\xc3\xbc \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \xe2\x80\xa8 end"},
    {"Q_CONTROL", "tab\there cr\r esc\x1b[31m bell\x07 del\x7f"},
    {"Q_SHELL", "a; echo injected > /tmp/ah-injected-$$ # && || | > < &"},
    {"Q_BACKSLASH", "\\ \\\\ \\' \\\" \\n trailing\\"},
    {"Q_EMPTY", ""},
};

void expect_all_in_bash(actionhost::client::Runtime &rt, const Environment &vars, const std::string &session, const char *where) {
    for (const auto &[k, v] : vars) {
        auto got = bash_var(rt, k, session);
        ASSERT_TRUE(got.has_value()) << k << " unset in " << where;
        EXPECT_EQ(*got, v) << k << " in " << where;
    }
}

class EnvVars : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EnvVars, InitialEnvironmentReachesBashBashrcAndNewShells) {
    auto s = start(GetParam(), [](actionhost::client::RuntimeOptions &o) {
        // The client side's SANDBOX_ENV_<X> → <X> (keys upper-cased), as Config::load reads the environment.
        o.config.apply_env({{"SANDBOX_ENV_from_client", "sandbox env 'value' $HOME"}, {"SANDBOX_ENV_SHARED", "initial"}});
        o.config.set("sandbox.runtime_startup_env_vars", json({{"STARTUP_ONE", "start \"up\""}, {"SHARED", "startup wins"}}));
        o.sandbox_env = kHostile;
    });
    auto &rt = *s->runtime;
    expect_all_in_bash(rt, kHostile, "", "the default session");
    EXPECT_EQ(bash_var(rt, "FROM_CLIENT").value_or("<unset>"), "sandbox env 'value' $HOME");
    EXPECT_EQ(bash_var(rt, "STARTUP_ONE").value_or("<unset>"), "start \"up\"");
    // runtime_startup_env_vars are applied after the initial environment (OpenHands' order).
    EXPECT_EQ(bash_var(rt, "SHARED").value_or("<unset>"), "startup wins");
    // Nothing in a value was executed.
    EXPECT_EQ(content(run(rt, "ls /tmp/ah-injected-* 2>/dev/null | wc -l")), "0");

    // ~/.bashrc holds one `export K=...` line per key, and a new shell starts with every value.
    std::string bashrc = content(run(rt, "cat ~/.bashrc"));
    for (const auto &[k, v] : kHostile) EXPECT_NE(bashrc.find("export " + k + "="), std::string::npos) << k << "\n" << bashrc;
    EXPECT_NE(bashrc.find("export SHARED='startup wins'"), std::string::npos) << bashrc;
    EXPECT_EQ(bashrc.find("export SHARED='initial'"), std::string::npos) << "an older line of a key is replaced\n" << bashrc;
    expect_all_in_bash(rt, kHostile, "fresh", "a new shell");
    EXPECT_EQ(bash_var(rt, "STARTUP_ONE", "fresh").value_or("<unset>"), "start \"up\"");
}

TEST_P(EnvVars, AddedAtAnyTimeAndOverwrittenSurvivePauseResume) {
    auto s = start(GetParam());
    auto &rt = *s->runtime;
    rt.add_env_vars({{"late_key", "first"}});
    EXPECT_EQ(bash_var(rt, "LATE_KEY").value_or("<unset>"), "first");
    rt.add_env_vars({{"LATE_KEY", "second\nvalue $x"}});
    EXPECT_EQ(bash_var(rt, "LATE_KEY").value_or("<unset>"), "second\nvalue $x");
    std::string bashrc = content(run(rt, "grep -c '^export LATE_KEY=' ~/.bashrc"));
    EXPECT_EQ(bashrc, "1");

    rt.pause();
    rt.resume();
    EXPECT_EQ(bash_var(rt, "LATE_KEY").value_or("<unset>"), "second\nvalue $x");
    EXPECT_EQ(bash_var(rt, "LATE_KEY", "after-resume").value_or("<unset>"), "second\nvalue $x");

    // The agent's session keeps its own state: the variables were set without moving its cwd.
    EXPECT_EQ(content(run(rt, "pwd")), s->workspace_inside);
}

TEST_P(EnvVars, ValuesAreInNoCommandHistoryOrLeftoverFile) {
    auto s = start(GetParam());
    auto &rt = *s->runtime;
    const std::string secret = "sk-SECRETvalue-0123456789";
    std::vector<std::string> transcript;
    std::string upload;  // the values' one way in: a file in a private directory
    rt.wire().set_observer([&](const actionhost::client::HttpRequest &req, const actionhost::client::HttpResponse &resp) {
        if (req.path.rfind("/upload_file", 0) != 0) transcript.push_back(req.path + "\n" + req.body);
        else upload = req.path;
        transcript.push_back(resp.body);
    });
    rt.add_env_vars({{"API_KEY", secret}});
    rt.wire().set_observer({});
    for (const auto &t : transcript) EXPECT_EQ(t.find(secret), std::string::npos) << t;
    EXPECT_EQ(bash_var(rt, "API_KEY").value_or("<unset>"), secret);
    EXPECT_EQ(content(run(rt, "history")).find(secret), std::string::npos);
    // ~/.bashrc is where it is meant to stay; the uploaded script's directory is gone.
    EXPECT_EQ(content(run(rt, "grep -c '^export API_KEY=' ~/.bashrc")), "1");
    ASSERT_NE(upload.find("destination=/"), std::string::npos) << upload;
    std::string dir = upload.substr(upload.find("destination=") + 12);
    dir = dir.substr(0, dir.find('&'));
    EXPECT_EQ(content(run(rt, "test -e " + dir + " && echo left || echo gone")), "gone") << dir;
}

TEST_P(EnvVars, BadNamesAndValuesAreRefusedClearly) {
    auto s = start(GetParam());
    auto &rt = *s->runtime;
    try {
        rt.add_env_vars({{"BAD-NAME", "x"}});
        FAIL() << "a bad name was accepted";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("BAD-NAME"), std::string::npos) << e.what();
    }
    EXPECT_THROW(rt.add_env_vars({{"NUL_VALUE", std::string("a\0b", 3)}}), std::invalid_argument);
    EXPECT_THROW(rt.add_env_vars({{"NOT_UTF8", "\xff\xfe"}}), std::invalid_argument);
    EXPECT_THROW(rt.add_env_vars({{"1ABC", "x"}}), std::invalid_argument);
    // Nothing half-applied, and the session still works.
    EXPECT_FALSE(bash_var(rt, "NUL_VALUE").has_value());
    EXPECT_EQ(content(run(rt, "echo ok")), "ok");
}

INSTANTIATE_TEST_SUITE_P(Runtimes, EnvVars, ::testing::Values("local", "sandbox"), [](const auto &info) { return info.param; });

TEST(EnvVarsKernel, ReachTheIPythonKernelWhenJupyterIsLoaded) {
    if (!plugin_built("jupyter")) GTEST_SKIP() << "the jupyter plugin is not built";
    auto s = start("local", [](actionhost::client::RuntimeOptions &o) {
        o.plugins = {"jupyter"};
        o.sandbox_env = kHostile;
    });
    auto &rt = *s->runtime;
    ASSERT_TRUE(rt.jupyter_loaded());
    for (const auto &[k, v] : kHostile) {
        auto got = kernel_var(rt, k);
        ASSERT_TRUE(got.has_value()) << k;
        EXPECT_EQ(*got, v) << k;
    }
    rt.add_env_vars({{"kernel_late", "\xf0\x9f\x98\x80 \"late\" \n"}});
    EXPECT_EQ(kernel_var(rt, "KERNEL_LATE").value_or("<unset>"), "\xf0\x9f\x98\x80 \"late\" \n");
    EXPECT_EQ(bash_var(rt, "KERNEL_LATE").value_or("<unset>"), "\xf0\x9f\x98\x80 \"late\" \n");
}
