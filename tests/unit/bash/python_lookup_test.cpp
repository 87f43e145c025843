// PythonLookup: a fresh search for every prompt, except that "no python on this PATH" is believed for a
// second (against real files: the search is stats).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "python_lookup.hpp"
#include "support/temp_dir.hpp"

using actionhost::bash::PythonLookup;

namespace {
void make_python(const std::string &dir) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/python") << "#!/bin/sh\n";
    chmod((dir + "/python").c_str(), 0755);
}
}  // namespace

TEST(PythonLookup, AFoundInterpreterIsCheckedAgainEveryTime) {
    actionhost::testing::TempDir t("ahpy");
    const actionhost::common::ShellIdentity self;
    const std::string path = t.path() + "/a:" + t.path() + "/b";
    make_python(t.path() + "/b");
    PythonLookup lookup;
    EXPECT_EQ(lookup.find(path, t.path(), self), t.path() + "/b/python");
    make_python(t.path() + "/a");  // now shadowed: seen at once
    EXPECT_EQ(lookup.find(path, t.path(), self), t.path() + "/a/python");
    std::filesystem::remove(t.path() + "/a/python");
    std::filesystem::remove(t.path() + "/b/python");
    EXPECT_EQ(lookup.find(path, t.path(), self), "");
}

TEST(PythonLookup, NoneIsBelievedForASecondPerPathAndDirectory) {
    actionhost::testing::TempDir t("ahpy");
    const actionhost::common::ShellIdentity self;
    const std::string path = "bin:" + t.path() + "/a";
    PythonLookup lookup;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(lookup.find(path, t.path(), self), "");
    make_python(t.path() + "/a");
    make_python(t.path() + "/w/bin");
    EXPECT_EQ(lookup.find(path, t.path(), self), "");  // kept: the same PATH and directory found none
    // Another PATH, or another directory (relative entries), is searched at once.
    EXPECT_EQ(lookup.find(path, t.path() + "/w", self), "bin/python");
    EXPECT_EQ(lookup.find(path + ":", t.path(), self), t.path() + "/a/python");
    std::filesystem::remove(t.path() + "/a/python");
    EXPECT_EQ(lookup.find(path, t.path(), self), "");
    make_python(t.path() + "/a");
    if (std::chrono::steady_clock::now() - start < PythonLookup::kNoneKept / 2) {
        EXPECT_EQ(lookup.find(path, t.path(), self), "");
        std::this_thread::sleep_for(PythonLookup::kNoneKept + std::chrono::milliseconds(50));
    }
    EXPECT_EQ(lookup.find(path, t.path(), self), t.path() + "/a/python");  // a second later, found
}
