// KernelSession against a real ipykernel (/usr/bin/python3 -m ipykernel_launcher), without the host: the
// protocol client end to end — start, results, errors, interrupt on timeout, death and restart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>

#include "kernel/kernel_session.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::jupyter;

namespace {
struct Fixture : ::testing::Test {
    actionhost::testing::TempDir dir{"ahjup"};
    zmq::context_t ctx{1};
    std::mutex log_mu;
    std::string log_text;
    KernelConfig config() {
        KernelConfig c;
        c.working_dir = dir.path();
        c.start_timeout_s = 90;
        c.interrupt_grace_s = 20;
        c.log = [this](LogLevel, const std::string &m) {
            std::lock_guard<std::mutex> l(log_mu);
            log_text += m + "\n";
        };
        return c;
    }
};
}  // namespace

TEST_F(Fixture, RunsCellsAndKeepsState) {
    KernelSession k(ctx, config());
    auto running = k.ensure_running();
    ASSERT_TRUE(running) << running.error().message << log_text;
    EXPECT_EQ(k.interpreter(), "/usr/bin/python3");
    EXPECT_EQ(k.take_restart_notice(), "");
    {
        CellOutput out;
        auto r = k.execute("x = 20\nx + 1", 60, out);
        EXPECT_EQ(r.status, CellStatus::Completed);
        EXPECT_EQ(out.text(), "21");
    }
    {
        CellOutput out;
        std::string partial;
        auto r = k.execute("import os\nprint(os.getcwd()); print('x =', x)", 60, out, false,
                           [&](std::string_view s) { partial += s; });
        EXPECT_EQ(r.status, CellStatus::Completed);
        EXPECT_EQ(out.text(), dir.path() + "\nx = 20");
        EXPECT_EQ(partial, dir.path() + "\nx = 20\n");
    }
    {
        CellOutput out;
        auto r = k.execute("1/0", 60, out);
        EXPECT_TRUE(r.raised);
        const std::string t = out.text();
        EXPECT_NE(t.find("ZeroDivisionError"), std::string::npos) << t;
        EXPECT_EQ(t.find('\x1b'), std::string::npos) << "tracebacks carry no colour codes";
    }
    {
        CellOutput out;
        k.execute("pass", 60, out);
        EXPECT_EQ(out.text(), "[Code executed successfully with no output]");
    }
}

TEST_F(Fixture, TimeoutInterruptsAndTheKernelSurvives) {
    KernelSession k(ctx, config());
    auto running = k.ensure_running();
    ASSERT_TRUE(running) << running.error().message;
    CellOutput setup;
    k.execute("keep = 42", 60, setup);
    CellOutput out;
    auto r = k.execute("import time\nwhile True: time.sleep(0.05)", 1.0, out);
    EXPECT_EQ(r.status, CellStatus::TimedOut);
    CellOutput after;
    r = k.execute("keep", 60, after);
    EXPECT_EQ(r.status, CellStatus::Completed);
    EXPECT_EQ(after.text(), "42");
    EXPECT_EQ(k.take_restart_notice(), "");
}

TEST_F(Fixture, DeathMidCellIsReportedAndTheNextStartSaysSo) {
    KernelSession k(ctx, config());
    auto running = k.ensure_running();
    ASSERT_TRUE(running) << running.error().message;
    const pid_t first = k.kernel_pid();
    CellOutput out;
    auto r = k.execute("print('before', flush=True)\nimport os, signal, time\ntime.sleep(0.3)\nos.kill(os.getpid(), signal.SIGKILL)", 60, out);
    EXPECT_EQ(r.status, CellStatus::KernelDied);
    EXPECT_EQ(r.reason, "was killed by signal 9 (Killed)");
    EXPECT_EQ(out.text(), "before");
    EXPECT_FALSE(k.has_kernel());
    running = k.ensure_running();
    ASSERT_TRUE(running) << running.error().message;
    EXPECT_NE(k.kernel_pid(), first);
    EXPECT_EQ(k.take_restart_notice(),
              "[IPython kernel restarted: the previous kernel was killed by signal 9 (Killed). Variables, imports and "
              "other state from earlier cells are lost.]");
    CellOutput next;
    EXPECT_EQ(k.execute("2*3", 60, next).status, CellStatus::Completed);
    EXPECT_EQ(next.text(), "6");
}

TEST_F(Fixture, ABrokenKernelCommandFailsClearly) {
    KernelConfig c = config();
    c.command = {"/nonexistent/python3", "-f", "{connection_file}"};
    c.start_timeout_s = 10;
    KernelSession k(ctx, c);
    auto running = k.ensure_running();
    ASSERT_FALSE(running);
    EXPECT_NE(running.error().message.find("/nonexistent/python3"), std::string::npos) << running.error().message;
}
