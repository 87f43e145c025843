// MemoryCgroup against a real cgroup-v1 memory controller: the kill counter read through the file kept
// open follows the kernel's count (a cgroup file read again from offset 0 is regenerated), and the
// note names the limit. Runs in a child process moved into a cgroup made by the test, so this process
// and the rest of the suite stay where they are.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <actionhost/common/oom.hpp>

namespace {

const std::string kMemoryRoot = "/sys/fs/cgroup/memory";

bool write_file(const std::string &path, const std::string &text) {
    std::ofstream out(path);
    out << text;
    out.close();
    return static_cast<bool>(out);
}

// Runs in the child, inside the test's cgroup: 0 when every check holds, else the number of the check
// that failed (the parent says which).
int checks_inside_the_cgroup() {
    const actionhost::common::MemoryCgroup cgroup;
    if (cgroup.oom_kills() != 0u) return 1;
    if (cgroup.limit_bytes() != uint64_t{64} << 20) return 2;
    const auto before = cgroup.oom_kills();
    if (!cgroup.kill_note_since(before).empty()) return 3;
    const pid_t hog = fork();
    if (hog == 0) {
        // Touches 512 MiB page by page: the 64 MiB limit has the kernel kill it long before the end.
        const size_t size = size_t{512} << 20;
        char *p = static_cast<char *>(std::malloc(size));
        for (size_t i = 0; p && i < size; i += 4096) p[i] = 1;
        _exit(0);
    }
    int status = 0;
    if (hog < 0 || waitpid(hog, &status, 0) != hog) return 4;
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) return 5;
    if (cgroup.oom_kills() != 1u) return 6;
    if (cgroup.kill_note_since(before) !=
        "A process of this command was killed by the kernel's out-of-memory killer (memory limit 64 MiB).")
        return 7;
    return 0;
}

}  // namespace

TEST(MemoryCgroup, TheKillCounterReadThroughTheOpenFileFollowsTheKernel) {
    if (geteuid() != 0 || !std::filesystem::exists(kMemoryRoot + "/cgroup.procs"))
        GTEST_SKIP() << "needs root and a cgroup-v1 memory hierarchy at " << kMemoryRoot;
    const std::string dir = kMemoryRoot + "/ah-oom-test-" + std::to_string(getpid());
    ASSERT_TRUE(std::filesystem::create_directory(dir)) << dir;
    ASSERT_TRUE(write_file(dir + "/memory.limit_in_bytes", std::to_string(64 << 20)));
    if (std::filesystem::exists(dir + "/memory.memsw.limit_in_bytes"))  // no way around the limit through swap
        write_file(dir + "/memory.memsw.limit_in_bytes", std::to_string(64 << 20));
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(go[1]);
        char byte = 0;
        if (read(go[0], &byte, 1) != 1) _exit(100);  // moved into the cgroup by the parent first
        _exit(checks_inside_the_cgroup());
    }
    close(go[0]);
    const bool moved = write_file(dir + "/cgroup.procs", std::to_string(child));
    (void)!write(go[1], "x", 1);
    close(go[1]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    std::error_code ec;
    for (int i = 0; i < 100 && !std::filesystem::remove(dir, ec); ++i) usleep(10000);  // the hog's exit may lag
    ASSERT_TRUE(moved);
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "check " << WEXITSTATUS(status)
                                      << " failed (1-3: before the kill, 4-5: the hog, 6-7: after the kill)";
}
