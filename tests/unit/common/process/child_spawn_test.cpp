// ChildProcess::spawn against real children: what fails is said clearly and leaves nothing behind, and a
// child holds its three streams (plus keep_fds) and nothing else of ours — through both ways of starting
// one (posix_spawn, and fork for what posix_spawn cannot do; die_with_parent forces the fork).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/process_state.hpp>

#include "process_test_util.hpp"

using namespace actionhost::common;
using actionhost::testing::descriptors_once_loaded;
using actionhost::testing::open_descriptors;
using actionhost::testing::read_until_eof;

namespace {

// Runs each test through posix_spawn (false) and through fork (true).
class ChildProcessSpawn : public ::testing::TestWithParam<bool> {
  protected:
    SpawnSpec spec(std::vector<std::string> argv) const {
        SpawnSpec s;
        s.argv = std::move(argv);
        s.use_pty = false;
        s.die_with_parent = GetParam();
        return s;
    }
};

std::string spawn_error(const SpawnSpec &s) {
    auto child = ChildProcess::spawn(s);
    EXPECT_FALSE(child) << "spawned pid " << (child ? child.value()->pid() : 0);
    return child ? "" : child.error().message;
}

}  // namespace

TEST_P(ChildProcessSpawn, AMissingProgramIsAClearError) {
    EXPECT_EQ(spawn_error(spec({"/nonexistent/ah-no-such-program"})),
              "cannot start /nonexistent/ah-no-such-program: No such file or directory");
    EXPECT_EQ(spawn_error(spec({"ah-no-such-program"})), "command not found: ah-no-such-program");
    EXPECT_EQ(spawn_error(spec({})), "no command");
}

TEST_P(ChildProcessSpawn, AWorkingDirectoryThatCannotBeEnteredIsNamed) {
    auto s = spec({"/bin/true"});
    s.working_dir = "/nonexistent/ah-dir";
    EXPECT_EQ(spawn_error(s), "cannot start /bin/true: chdir to /nonexistent/ah-dir: No such file or directory");
}

TEST_P(ChildProcessSpawn, AnUnopenableLogFileIsNamed) {
    auto s = spec({"/bin/true"});
    s.out = Stream::file("/nonexistent/ah-dir/log");
    EXPECT_EQ(spawn_error(s), "cannot open /nonexistent/ah-dir/log: No such file or directory");
}

// A descriptor stream: the child writes to the file the caller opened (here one already unlinked, so no
// name could lead anywhere else), and the caller's descriptor stays open and its own.
TEST_P(ChildProcessSpawn, ADescriptorStreamIsTheCallersOpenFile) {
    char name[] = "/tmp/ah-descriptor-XXXXXX";
    const int fd = ::mkstemp(name);
    ASSERT_GE(fd, 0);
    ::unlink(name);
    auto s = spec({"/bin/sh", "-c", "echo to-the-file; echo also >&2"});
    s.out = Stream::descriptor(fd);
    s.err = Stream::to_stdout();
    auto started = ChildProcess::spawn(s);
    ASSERT_TRUE(started) << started.error().message;
    ASSERT_TRUE(std::move(started).value()->wait(std::chrono::seconds(10)));
    char buf[64] = {};
    EXPECT_EQ(::pread(fd, buf, sizeof buf - 1, 0), 17);
    EXPECT_STREQ(buf, "to-the-file\nalso\n");
    EXPECT_EQ(::fcntl(fd, F_GETFD), 0) << "the caller's descriptor changed";
    ::close(fd);
    s.out = Stream::descriptor(-1);
    EXPECT_EQ(spawn_error(s), "stream 1 is a descriptor, but none was given");
}

// The fix of the MCP plugin's old leak: a later pipe failing closes the earlier ones.
TEST_P(ChildProcessSpawn, APipeThatCannotBeMadeLeavesNoDescriptorOpen) {
    // Fill every hole below the highest descriptor, so that new ones come strictly from the top; then
    // allow exactly three more: stdin's pipe takes two, stdout's pipe cannot be made.
    std::vector<int> fillers;
    const std::set<int> initially = open_descriptors();
    for (int fd = 0; fd < *initially.rbegin(); ++fd)
        if (!initially.count(fd)) fillers.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const std::set<int> before = open_descriptors();
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
    rlimit tight = old;
    tight.rlim_cur = static_cast<rlim_t>(*before.rbegin() + 1 + 3);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
    auto s = spec({"/bin/true"});
    s.in = Stream::pipe();
    s.out = Stream::pipe();
    s.err = Stream::pipe();
    auto child = ChildProcess::spawn(s);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
    ASSERT_FALSE(child);
    EXPECT_EQ(child.error().message, "pipe: Too many open files");
    EXPECT_EQ(child.error().sys_errno, EMFILE);
    EXPECT_EQ(open_descriptors(), before);
    for (int fd : fillers) ::close(fd);
}

TEST_P(ChildProcessSpawn, TheChildHoldsItsStreamsAndNothingElseOfOurs) {
    // Descriptors opened without O_CLOEXEC, as Poco opens its sockets.
    const int file = ::open("/dev/null", O_RDONLY);
    int sockets[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sockets), 0);
    auto s = spec({"/bin/sleep", "30"});
    auto started = ChildProcess::spawn(s);
    ASSERT_TRUE(started) << started.error().message;
    auto child = std::move(started).value();
    EXPECT_EQ(descriptors_once_loaded(child->pid(), {0, 1, 2}), (std::set<int>{0, 1, 2}));
    const std::string out = std::filesystem::read_symlink("/proc/" + std::to_string(child->pid()) + "/fd/1");
    EXPECT_EQ(out.rfind("pipe:", 0), 0u) << out;
    EXPECT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(child->pid()) + "/fd/2"), out);
    child.reset();
    ::close(file);
    ::close(sockets[0]);
    ::close(sockets[1]);
}

TEST_P(ChildProcessSpawn, EnvironmentWorkingDirectoryAndExitStatusReachTheChild) {
    auto s = spec({"sh", "-c", "echo \"$AH_WORD $(pwd)\"; echo oops >&2; exit 3"});
    s.env = std::vector<std::string>{"AH_WORD=hello", "PATH=/usr/bin:/bin"};
    s.working_dir = "/tmp";
    s.err = Stream::pipe();
    auto started = ChildProcess::spawn(s);
    ASSERT_TRUE(started) << started.error().message;
    auto child = std::move(started).value();
    EXPECT_EQ(read_until_eof(child->output_fd()), "hello /tmp\n");
    EXPECT_EQ(read_until_eof(child->stderr_fd()), "oops\n");
    const auto status = child->wait(std::chrono::seconds(10));
    ASSERT_TRUE(status);
    EXPECT_EQ(status->shell_code(), 3);
    EXPECT_EQ(status->describe(), "exited with status 3");
}

TEST_P(ChildProcessSpawn, StdinIsAPipeWeWriteAndClose) {
    auto s = spec({"/bin/sh", "-c", "cat; echo done"});
    s.in = Stream::pipe();
    auto started = ChildProcess::spawn(s);
    ASSERT_TRUE(started) << started.error().message;
    auto child = std::move(started).value();
    ASSERT_TRUE(child->write_all("line\n", std::chrono::steady_clock::now() + std::chrono::seconds(5)));
    child->close_stdin();
    EXPECT_EQ(read_until_eof(child->output_fd()), "line\ndone\n");
}

INSTANTIATE_TEST_SUITE_P(PosixSpawnAndFork, ChildProcessSpawn, ::testing::Bool(),
                         [](const auto &info) { return info.param ? "Fork" : "PosixSpawn"; });

TEST(ChildProcessSpawnKeepFds, AKeptDescriptorIsInheritedAndNoOther) {
    int kept[2];
    ASSERT_EQ(::pipe2(kept, O_CLOEXEC), 0);
    const int stray = ::open("/dev/null", O_RDONLY);
    SpawnSpec s;
    s.argv = {"/bin/sleep", "30"};
    s.use_pty = false;
    s.keep_fds = {kept[1]};
    auto started = ChildProcess::spawn(s);
    ASSERT_TRUE(started) << started.error().message;
    auto child = std::move(started).value();
    EXPECT_EQ(descriptors_once_loaded(child->pid(), {0, 1, 2, kept[1]}), (std::set<int>{0, 1, 2, kept[1]}));
    child.reset();
    for (int fd : {kept[0], kept[1], stray}) ::close(fd);
}

// Descriptors placed at numbers of the child's choosing, here swapped with each other (each source sits
// at the other's target): the child reads each pipe at its number and inherits nothing else of ours.
TEST(ChildProcessSpawnMappedFds, EachDescriptorArrivesAtItsNumberAndNoOther) {
    int a[2], b[2];
    ASSERT_EQ(::pipe2(a, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(b, O_CLOEXEC), 0);
    ASSERT_EQ(::write(a[1], "A", 1), 1);
    ASSERT_EQ(::write(b[1], "B", 1), 1);
    const std::string at_a = std::to_string(a[0]), at_b = std::to_string(b[0]);
    SpawnSpec s;
    // a's pipe is read at b's number and b's at a's: "AB" only if the swap was made through free numbers.
    s.argv = {"/bin/sh", "-c", "head -c1 <&" + at_b + "; head -c1 <&" + at_a + "; ls /proc/self/fd | sort -n | tr '\\n' ' '"};
    s.use_pty = false;
    s.mapped_fds = {{a[0], b[0]}, {b[0], a[0]}};
    auto started = ChildProcess::spawn(s);
    ASSERT_TRUE(started) << started.error().message;
    auto child = std::move(started).value();
    const auto status = child->wait(std::chrono::seconds(10));
    ASSERT_TRUE(status);
    std::string out;
    char buf[256];
    for (ssize_t n; (n = ::read(child->output_fd(), buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    EXPECT_EQ(out.substr(0, 2), "AB") << out;
    // 0 1 2, the two mapped numbers, and the one ls reads /proc/self/fd through (the lowest free one).
    std::set<int> seen;
    std::istringstream list(out.substr(2));
    for (int fd; list >> fd;) seen.insert(fd);
    EXPECT_TRUE(seen.count(a[0]) && seen.count(b[0])) << out;
    EXPECT_EQ(seen.size(), 6u) << out;
    for (int fd : {a[0], a[1], b[0], b[1]}) ::close(fd);
}

TEST(ChildProcessSpawnMappedFds, ATargetBelowThreeIsRefused) {
    SpawnSpec s;
    s.argv = {"/bin/true"};
    s.use_pty = false;
    s.mapped_fds = {{0, 2}};
    auto started = ChildProcess::spawn(s);
    ASSERT_FALSE(started);
    EXPECT_NE(started.error().message.find("from 3 to 255"), std::string::npos) << started.error().message;
}

TEST(ChildProcessSpawnSearchPath, ABareNameIsFoundOnTheSearchPathAndADirectoryOfThatNameIsSkipped) {
    const std::string dir = "/tmp/ah-spawn-search-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir + "/sh");  // a directory called sh, searched first
    SpawnSpec s;
    s.argv = {"sh", "-c", "exit 7"};
    s.use_pty = false;
    s.search_path = dir + ":/nonexistent:/bin";
    auto started = ChildProcess::spawn(s);
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(started) << started.error().message;
    auto child = std::move(started).value();
    const auto status = child->wait(std::chrono::seconds(10));
    ASSERT_TRUE(status);
    EXPECT_EQ(status->shell_code(), 7);
}

// PR_SET_PDEATHSIG follows the forking thread: a child asked for by a thread that then ends must live on.
TEST(ChildProcessSpawnDieWithParent, AChildSpawnedFromAShortLivedThreadOutlivesTheThread) {
    std::unique_ptr<ChildProcess> child;
    std::string error;
    std::thread([&] {
        SpawnSpec s;
        s.argv = {"/bin/sleep", "30"};
        s.use_pty = false;
        s.die_with_parent = true;
        auto started = ChildProcess::spawn(s);
        if (started) child = std::move(started).value();
        else error = started.error().message;
    }).join();
    ASSERT_TRUE(child) << error;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(process_is_live(child->pid()));
    EXPECT_FALSE(child->wait(std::chrono::milliseconds(0)));
}
