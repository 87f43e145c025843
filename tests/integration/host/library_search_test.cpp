// Our programs start in directories agents write to (the host in the workspace, ahctl wherever it is
// run). The dynamic loader must never look for their libraries there: CMake pads build-tree RUNPATHs with
// empty entries, which ld.so reads as "the current directory". Each program is started in a directory
// holding a library under the name of each one it needs; the planted library exits with 97 if loaded.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

namespace {

using actionhost::testing::build_path;
using actionhost::testing::run_process;
using actionhost::testing::TempDir;

// What our programs link directly (libc itself left out: a program without it cannot say anything).
const char *const kNeededNames[] = {"libstdc++.so.6",  "libPocoNet.so.80", "libPocoFoundation.so.80", "libPocoZip.so.80",
                                    "libPocoUtil.so.80", "libz.so.1",      "libcrypto.so.3",          "libssl.so.3",
                                    "libseccomp.so.2", "libcap.so.2",      "libboost_filesystem.so.1.74.0"};

void plant_libraries(const std::string &dir) {
    for (const char *name : kNeededNames)
        std::filesystem::copy_file(AH_PLANTED_LIBRARY, dir + "/" + name, std::filesystem::copy_options::overwrite_existing);
}

// Runs `program args` with `dir` as its working directory.
actionhost::testing::ProcessResult run_in(const std::string &dir, const std::string &program, const std::string &args) {
    return run_process({"/bin/bash", "-c", "cd \"$1\" && exec \"$2\" " + args, "run_in", dir, program}, 60.0);
}

TEST(LibrarySearch, PlantedLibrariesBreakAProgramThatSearchesThere) {
    // The check below can fail: told to search the directory, a program of ours picks a planted library up
    // (its constructor exits 97, or the loader fails on the symbols the impostor lacks).
    TempDir dir("ahlib");
    plant_libraries(dir.path());
    const auto r = run_process({"/bin/bash", "-c", "cd \"$1\" && LD_LIBRARY_PATH=. exec \"$2\" --version", "x", dir.path(),
                                build_path("bin/actionhost")});
    EXPECT_NE(r.exit_code, 0) << r.output;
}

TEST(LibrarySearch, ProgramsNeverLoadLibrariesFromTheirWorkingDirectory) {
    TempDir dir("ahlib"), empty("ahlib");
    plant_libraries(dir.path());
    const struct {
        const char *path;
        const char *args;
    } programs[] = {{"bin/actionhost", "--version"},
                    {"bin/ahctl", "--help"},
                    {"lib/actionhost/runtimes/sandbox/ah-sandbox-init", "--help"},
                    {"lib/actionhost/runtimes/local/ah-local-keeper", "--help"},
                    {"lib/actionhost/runtimes/docker/ah-docker-keeper", "--help"}};
    for (const auto &p : programs) {
        const std::string program = build_path(p.path);
        if (!std::filesystem::exists(program)) continue;  // a module left out of this build
        const auto planted = run_in(dir.path(), program, p.args);
        const auto clean = run_in(empty.path(), program, p.args);
        EXPECT_EQ(planted.exit_code, clean.exit_code) << p.path << ": " << planted.output;
        EXPECT_EQ(planted.output, clean.output) << p.path;
    }
}

}  // namespace
