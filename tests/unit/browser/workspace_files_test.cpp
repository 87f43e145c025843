// plugins/browser/src/workspace_files: a download is opened once, as a plain name of its directory,
// through no link and with no second name; what the host writes for the browser goes through no link.
#include "workspace_files.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "support/temp_dir.hpp"

using namespace actionhost::browser;
namespace at = actionhost::testing;
namespace fs = std::filesystem;

namespace {
std::string refusal(const std::string &dir, const std::string &name) {
    auto f = open_own_file(dir, name);
    return f ? "" : f.error().message;
}
}  // namespace

TEST(WorkspaceFiles, OnlyAPlainRegularFileOfTheDirectoryIsOpened) {
    at::TempDir dir("ah-own-file");
    at::write_file(dir / "downloads/3f1e-aa", "%PDF-1.4 data");
    at::write_file(dir / "secret", "the machine's\n");
    // Names that lead elsewhere.
    for (const char *name : {"../secret", "/etc/passwd", "..", ".", "", "a/b"})
        EXPECT_NE(refusal(dir / "downloads", name), "") << name;
    // A link planted for the name, or for the directory.
    fs::create_symlink(dir / "secret", dir / "downloads/link");
    EXPECT_NE(refusal(dir / "downloads", "link"), "");
    fs::create_directory_symlink(dir / "downloads", dir / "linked-downloads");
    EXPECT_NE(refusal(dir / "linked-downloads", "3f1e-aa").find("a link or not a directory"), std::string::npos);
    // A FIFO (opening it must not wait for a writer), a directory, a second name.
    ASSERT_EQ(::mkfifo((dir / "downloads/fifo").c_str(), 0600), 0);
    EXPECT_NE(refusal(dir / "downloads", "fifo").find("not a regular file"), std::string::npos);
    fs::create_directory(dir / "downloads/sub");
    EXPECT_NE(refusal(dir / "downloads", "sub").find("not a regular file"), std::string::npos);
    ASSERT_EQ(::link((dir / "secret").c_str(), (dir / "downloads/hard").c_str()), 0);
    EXPECT_NE(refusal(dir / "downloads", "hard").find("hard link"), std::string::npos);
    // The download itself, copied through its descriptor.
    auto f = open_own_file(dir / "downloads", "3f1e-aa");
    ASSERT_TRUE(f) << f.error().message;
    auto copied = copy_into_workspace(f.value().get(), "the download", dir / "ws", "file_1.pdf", std::nullopt);
    ASSERT_TRUE(copied) << copied.error().message;
    EXPECT_EQ(at::read_file(copied.value()), "%PDF-1.4 data");
    // A link planted where the copy goes is refused, and what it names is untouched.
    fs::create_symlink(dir / "secret", dir / "ws/file_2.pdf");
    EXPECT_FALSE(copy_into_workspace(f.value().get(), "the download", dir / "ws", "file_2.pdf", std::nullopt));
    EXPECT_EQ(at::read_file(dir / "secret"), "the machine's\n");
}
