// Allowed roots, symlinks pointing out, device files and FIFOs, unreadable files.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "editor.hpp"
#include "file_access.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::agent_skills {
namespace {

using actionhost::testing::TempDir;
using actionhost::testing::read_file;
using actionhost::testing::write_file;

EditorResult view(Editor &e, const std::string &p) {
    EditorRequest r;
    r.command = "view";
    r.path = p;
    return e.run(r);
}

TEST(FileSafety, RootsConfineTheEditorAndSymlinksCannotPointOut) {
    TempDir inside("ah-in"), outside("ah-out");
    write_file(inside / "ok.txt", "fine\n");
    write_file(outside / "secret.txt", "secret\n");
    ASSERT_EQ(::symlink((outside / "secret.txt").c_str(), (inside / "link.txt").c_str()), 0);
    ASSERT_EQ(::symlink((inside / "ok.txt").c_str(), (inside / "inner_link.txt").c_str()), 0);
    Editor e(inside.path(), editor_path_policy(inside.path() + ":/nonexistent-root"));
    EXPECT_TRUE(view(e, inside / "ok.txt").ok());
    EXPECT_TRUE(view(e, inside / "inner_link.txt").ok());
    auto r = view(e, outside / "secret.txt");
    EXPECT_EQ(r.error.rfind("Invalid `path` parameter: " + (outside / "secret.txt") + ". The path " + (outside / "secret.txt") +
                                " is outside the directories this editor may access: ",
                            0),
              0u)
        << r.error;
    r = view(e, inside / "link.txt");
    EXPECT_NE(r.error.find("resolves to " + (outside / "secret.txt") + ", which is outside"), std::string::npos) << r.error;
    EditorRequest c;
    c.command = "create";
    c.path = inside.path() + "/../" + std::filesystem::path(outside.path()).filename().string() + "/new.txt";
    c.file_text = "x";
    EXPECT_FALSE(e.run(c).ok());
    EXPECT_FALSE(std::filesystem::exists(outside / "new.txt"));
    // Unconfined (the default), the same path is allowed, as in OpenHands.
    Editor open_editor(inside.path(), editor_path_policy(""));
    EXPECT_TRUE(view(open_editor, outside / "secret.txt").ok());
}

TEST(FileSafety, DeviceFilesAndFifosAreRefused) {
    TempDir d("ah-dev");
    Editor e(d.path(), editor_path_policy(""));
    EXPECT_EQ(view(e, "/dev/null").error,
              "Invalid `path` parameter: /dev/null. The path /dev/null is a character device; the editor only works on regular files and directories.");
    ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
    EditorRequest s;
    s.command = "str_replace";
    s.path = d / "fifo";
    s.old_str = "a";
    s.new_str = "b";
    EXPECT_NE(e.run(s).error.find("is a FIFO"), std::string::npos);  // and it did not block
}

TEST(FileSafety, UnreadableFileGivesAClearError) {
    TempDir d("ah-perm");
    const std::string p = d / "private.txt";
    write_file(p, "private\n");
    const std::string expected = "Ran into [Errno 13] Permission denied: '" + p + "' while trying to read " + p;
    if (::getuid() != 0) {
        ASSERT_EQ(::chmod(p.c_str(), 0000), 0);
        Editor e(d.path(), editor_path_policy(""));
        EXPECT_EQ(view(e, p).error, expected);
        return;
    }
    // As root, permissions do not stop us: check from a child that became `nobody`.
    ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
    ASSERT_EQ(::chmod(d.path().c_str(), 0755), 0);
    const passwd *nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::close(fds[0]);
        if (::setgid(nobody->pw_gid) != 0 || ::setuid(nobody->pw_uid) != 0) ::_exit(3);
        Editor e(d.path(), editor_path_policy(""));
        const std::string err = view(e, p).error;
        (void)!::write(fds[1], err.data(), err.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_EQ(err, expected);
}

// Both ways of putting an edit in place (the default exchange of names, and fsync + rename) replace the
// content whole, keep the mode, and leave no temp file behind; a new file is created either way.
TEST(FileSafety, AtomicWritesReplaceWholeKeepModeAndLeaveNoTempFiles) {
    for (const bool durable : {false, true}) {
        TempDir dir("ah-write");
        const std::string path = dir / "f.txt";
        write_file(path, "old content\n");
        ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
        auto written = write_atomic(path, "new content\n", durable);
        ASSERT_TRUE(written) << written.error().message;
        EXPECT_EQ(read_file(path), "new content\n");
        struct stat st {};
        ASSERT_EQ(::stat(path.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 07777, 0640u);
        written = write_atomic(dir / "new.txt", "fresh\n", durable);
        ASSERT_TRUE(written) << written.error().message;
        EXPECT_EQ(read_file(dir / "new.txt"), "fresh\n");
        size_t entries = 0;
        for (const auto &e : std::filesystem::directory_iterator(dir.path())) {
            ++entries;
            EXPECT_EQ(e.path().filename().string().find(".ah-edit."), std::string::npos) << e.path();
        }
        EXPECT_EQ(entries, 2u) << "durable=" << durable;
    }
}

TEST(FileSafety, FsyncIsOptIn) {
    EXPECT_FALSE(editor_fsync_enabled(nullptr));
    EXPECT_FALSE(editor_fsync_enabled(""));
    EXPECT_FALSE(editor_fsync_enabled("0"));
    EXPECT_FALSE(editor_fsync_enabled("false"));
    EXPECT_TRUE(editor_fsync_enabled("1"));
    EXPECT_TRUE(editor_fsync_enabled("true"));
    EXPECT_TRUE(editor_fsync_enabled("True"));
    EXPECT_TRUE(editor_fsync_enabled("yes"));
}

}  // namespace
}  // namespace actionhost::agent_skills
