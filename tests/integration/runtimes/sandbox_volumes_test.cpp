// `[sandbox] volumes` on the sandbox backend (bind mounts of the machine's directories and files, `:ro`
// read-only even for root inside), its refusals before anything starts, and its refusal by a backend
// that does not honour it (naming the backend).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <actionhost/client/errors.hpp>
#include <filesystem>
#include <string>

#include "runtime_harness.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::testing::read_file;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
namespace fs = std::filesystem;

namespace {

std::string content(const nlohmann::json &obs) { return obs.value("content", ""); }

// What starting `backend` with `volumes` throws ("" when it started).
std::string start_error(const std::string &backend, const std::string &volumes) {
    try {
        auto s = start_runtime(backend, [&](Config &c) { c.set("sandbox.volumes", volumes); });
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(SandboxVolumes, DirectoriesAndFilesAreMountedReadWriteOrReadOnly) {
    TempDir rw("ahvol-rw"), ro("ahvol-ro"), files("ahvol-file");
    // Root's on the machine, which is nobody inside: the sandbox reads and writes them by their modes.
    ::chmod(rw.path().c_str(), 0777);
    ::chmod(files.path().c_str(), 0755);
    // Writable by its mode to anyone: only the read-only mount stands in the way.
    ::chmod((ro / "hello.txt").c_str(), 0666);
    ::chmod(ro.path().c_str(), 0777);
    ::chmod((files / "one.conf").c_str(), 0666);
    write_file(ro / "hello.txt", "from the machine\n");
    write_file(files / "one.conf", "key=value\n");
    const std::string spec = rw.path() + ":/data/rw, " + ro.path() + ":/data/ro:ro," + files.path() + "/one.conf:/opt-conf/one.conf:ro";
    auto s = start_runtime("sandbox", [&](Config &c) { c.set("sandbox.volumes", spec); });
    auto &rt = *s->runtime;

    EXPECT_EQ(content(run(rt, "cat /data/ro/hello.txt")), "from the machine");
    EXPECT_EQ(content(run(rt, "cat /opt-conf/one.conf")), "key=value");
    const auto wrote = run(rt, "echo written inside > /data/rw/new.txt && cat /data/rw/new.txt");
    EXPECT_EQ(exit_code(wrote), 0) << wrote.dump();
    EXPECT_EQ(read_file(rw / "new.txt"), "written inside\n");

    // Read-only: for the command's user (root inside here: test_runtime_options is not openhands).
    EXPECT_EQ(content(run(rt, "id -u")), "0");
    // (A root-owned file of the machine has no owner inside, which the kernel never lets anyone write: the
    // file volume is refused either way; the directories show the mount's own refusal.)
    EXPECT_NE(exit_code(run(rt, "echo y >> /opt-conf/one.conf")), 0);
    for (const char *cmd : {"touch /data/ro/x", "rm /data/ro/hello.txt"}) {
        const auto obs = run(rt, cmd);
        EXPECT_NE(exit_code(obs), 0) << cmd << ": " << obs.dump();
        EXPECT_NE(content(obs).find("Read-only file system"), std::string::npos) << cmd << ": " << obs.dump();
    }
    // Root inside cannot make it writable again, by any form of remount.
    for (const char *cmd : {"mount -o remount,rw /data/ro", "mount -o remount,bind,rw /data/ro", "umount /data/ro",
                            "umount -l /data/ro"}) {
        const auto obs = run(rt, std::string(cmd) + " 2>&1");
        EXPECT_NE(exit_code(obs), 0) << cmd << ": " << obs.dump();
    }
    EXPECT_NE(exit_code(run(rt, "touch /data/ro/x")), 0);
    EXPECT_EQ(content(run(rt, "grep ' /data/ro ' /proc/self/mountinfo | grep -c ' ro,'")), "1");
    EXPECT_EQ(read_file(ro / "hello.txt"), "from the machine\n");
    EXPECT_FALSE(fs::exists(ro / "x"));
    EXPECT_EQ(read_file(files / "one.conf"), "key=value\n");
}

TEST(SandboxVolumes, AVolumeInsideTheWorkspaceGoesOverIt) {
    TempDir data("ahvol-in");
    write_file(data / "inner.txt", "inner\n");
    ::chmod(data.path().c_str(), 0755);
    auto s = start_runtime("sandbox", [&](Config &c) { c.set("sandbox.volumes", data.path() + ":/workspace/data:ro"); });
    EXPECT_EQ(content(run(*s->runtime, "cat /workspace/data/inner.txt")), "inner");
    EXPECT_NE(exit_code(run(*s->runtime, "touch /workspace/data/x")), 0);
    EXPECT_EQ(exit_code(run(*s->runtime, "touch /workspace/beside")), 0);
}

TEST(SandboxVolumes, BadEntriesAreRefusedBeforeAnythingStarts) {
    TempDir dir("ahvol-bad");
    struct Case {
        std::string spec, says;
    };
    const Case cases[] = {
        {dir / "missing:/data", "does not exist"},
        {dir.path() + ":data", "must be absolute"},
        {dir.path() + ":/proc/sys/x", "inside /proc"},
        {dir.path() + ":/sys", "inside /sys"},
        {dir.path() + ":/", "root"},
        {dir.path() + ":/data:overlay", "overlay"},
        {dir.path() + ":/data:rwx", "the mode must be ro or rw"},
        {"relative/dir:/data", "must be absolute"},
        {dir.path() + ":/data," + dir.path() + ":/data/", "another volume"},
        {dir.path() + ":/workspace:ro", "cannot be read-only"},
        {dir.path(), "want host:/container"},
    };
    for (const auto &c : cases) {
        const std::string why = start_error("sandbox", c.spec);
        EXPECT_NE(why.find("sandbox.volumes"), std::string::npos) << c.spec << ": " << why;
        EXPECT_NE(why.find(c.says), std::string::npos) << c.spec << ": " << why;
    }
}

TEST(SandboxVolumes, ABackendThatDoesNotHonourThemRefusesThemByName) {
    TempDir dir("ahvol-local");
    const std::string why = start_error("local", dir.path() + ":/data");
    EXPECT_NE(why.find("Runtime local does not honour sandbox.volumes"), std::string::npos) << why;
}
