// The kernel misbehaving — dying mid-cell or while idle, a cell printing 100 MB, a cell that never ends —
// each gives a clear observation, the host keeps serving and the next cell works.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "jupyter_helpers.hpp"
#include "support/proc_file.hpp"
#include "support/sanitizers.hpp"

using namespace actionhost::testing;
using namespace actionhost::testing::jupyter;
using nlohmann::json;

namespace {
std::string content(const json &obs) { return obs.value("content", std::string("<no content: ") + obs.dump() + ">"); }

const std::string kRestartedAfterKill =
    "[IPython kernel restarted: the previous kernel was killed by signal 9 (Killed). Variables, imports and other "
    "state from earlier cells are lost.]";

// True once `pid` has exited (gone, or a zombie its parent has not reaped yet).
bool wait_until_dead(int pid, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        const std::string all = actionhost::testing::read_proc_file("/proc/" + std::to_string(pid) + "/stat");
        const size_t paren = all.rfind(')');
        if (all.empty() || (paren != std::string::npos && paren + 2 < all.size() && all[paren + 2] == 'Z')) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}
}  // namespace

TEST(JupyterResilience, KernelDeathMidCellThenRestartNotice) {
    HostProcess host(jupyter_host());
    ipython(host, "lost = 1");
    const std::string died = content(ipython(
        host, "print('partial output', flush=True)\nimport os, signal, time\ntime.sleep(0.2)\nos.kill(os.getpid(), signal.SIGKILL)"));
    EXPECT_EQ(died,
              "partial output\n[IPython kernel died while running this cell: it was killed by signal 9 (Killed). A new "
              "kernel will be started for the next cell.]" +
                  trailer(host.working_dir()));
    EXPECT_EQ(host.get("/alive").status, 200);
    EXPECT_EQ(content(ipython(host, "1 + 1")), kRestartedAfterKill + "\n2" + trailer(host.working_dir()));
    const std::string gone = content(ipython(host, "lost", -1, "", false));
    EXPECT_NE(gone.find("NameError"), std::string::npos) << gone;
}

TEST(JupyterResilience, KernelKilledWhileIdleIsRestartedOnTheNextCell) {
    HostProcess host(jupyter_host());
    const int pid = std::stoi(content(ipython(host, "import os; os.getpid()", -1, "", false)));
    ASSERT_GT(pid, 1);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_TRUE(wait_until_dead(pid, 20));
    EXPECT_EQ(content(ipython(host, "print('fresh')", -1, "", false)), kRestartedAfterKill + "\nfresh");
    // Only once.
    EXPECT_EQ(content(ipython(host, "print('again')", -1, "", false)), "again");
}

TEST(JupyterResilience, KernelExitingByItselfIsReported) {
    HostProcess host(jupyter_host());
    const std::string c = content(ipython(host, "import os; os._exit(3)", -1, "", false));
    EXPECT_EQ(c, "[IPython kernel died while running this cell: it exited with status 3. A new kernel will be started "
                 "for the next cell.]");
    EXPECT_EQ(content(ipython(host, "'ok'", -1, "", false)),
              "[IPython kernel restarted: the previous kernel exited with status 3. Variables, imports and other state "
              "from earlier cells are lost.]\n'ok'");
}

TEST(JupyterResilience, NeverEndingCellTimesOutAndTheKernelKeepsItsState) {
    HostProcess host(jupyter_host());
    ipython(host, "kept = 'state survives'");
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(content(ipython(host, "import time\nwhile True:\n    time.sleep(0.05)", 2.0)),
              "[Execution timed out (2.0 seconds).]" + trailer(host.working_dir()));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    // A busy loop (no sleeping) is interrupted as well.
    EXPECT_EQ(content(ipython(host, "while True:\n    pass", 1.5, "", false)), "[Execution timed out (1.5 seconds).]");
    EXPECT_EQ(content(ipython(host, "kept", -1, "", false)), "'state survives'");
}

TEST(JupyterResilience, HundredMegabyteCellIsTruncatedInBoundedMemory) {
    HostOptions o = jupyter_host();
    measure_own_memory_under_asan(o);  // each 1 MB message freed would otherwise stay in ASan's quarantine
    HostProcess host(o);
    const std::string code =
        "import sys\nchunk = ('x' * 1023 + '\\n') * 1024\nfor i in range(100):\n    sys.stdout.write(chunk)\n    sys.stdout.flush()\nprint('END-OF-OUTPUT')";
    const std::string c = content(ipython(host, code, 110));
    EXPECT_NE(c.find("[... Observation truncated due to length ...]"), std::string::npos);
    const std::string tail = "END-OF-OUTPUT" + trailer(host.working_dir());
    ASSERT_GT(c.size(), tail.size());
    EXPECT_EQ(c.substr(c.size() - tail.size()), tail);
    EXPECT_LT(c.size(), 30000u + 200u + trailer(host.working_dir()).size());
    const long peak_kb = host_peak_rss_kb(host.pid());
    EXPECT_GT(peak_kb, 0);
    // Nothing near 100 MB of output is held: the host's peak stays far below what a copy would need.
    // (Not under TSan: there the host decodes the kernel's messages several times slower than the kernel
    // writes them, so zmq's queue, bounded by a count of messages, holds most of the 100 MB until they are
    // read, each byte with TSan's shadow beside it; the peak measures that queue. The plain and ASan
    // builds, which keep up, check the bound.)
    if (!actionhost::testing::kThreadSanitizer) {
        EXPECT_LT(peak_kb, 400 * 1024) << "host peak RSS " << peak_kb << " kB";
    }
    EXPECT_EQ(content(ipython(host, "21 * 2", -1, "", false)), "42");
}
