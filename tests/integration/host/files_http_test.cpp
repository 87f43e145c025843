// /list_files, /upload_file and /download_files against the real binary.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/host_process.hpp"
#include "support/run_process.hpp"

using namespace actionhost::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
std::string make_zip(const TempDir &d, const std::vector<std::pair<std::string, std::string>> &entries) {
    std::string script = "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w')\n";
    for (const auto &[name, data] : entries) script += "z.writestr('" + name + "','" + data + "')\n";
    auto r = run_process({"/usr/bin/python3", "-c", script + "z.close()\n", d / "x.zip"}, 30);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(d / "x.zip");
}
std::string names_in_zip(const std::string &bytes) {
    TempDir d;
    write_file(d / "z.zip", bytes);
    return run_process({"/usr/bin/python3", "-c", "import zipfile,sys;print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))",
                        d / "z.zip"}, 30).output;
}
}  // namespace

TEST(HostFiles, ListFilesOrdersDirectoriesFirstCaseInsensitively) {
    HostProcess host;
    const std::string wd = host.working_dir();
    write_file(wd + "/b.txt", "");
    write_file(wd + "/A.txt", "");
    write_file(wd + "/.hidden", "");
    fs::create_directories(wd + "/zdir");
    fs::create_directories(wd + "/Adir");
    EXPECT_EQ(host.post_json("/list_files", "{}").json(), json({"Adir/", "zdir/", ".hidden", "A.txt", "b.txt"}));
    EXPECT_EQ(host.post_json("/list_files", R"({"path":"zdir"})").json(), json::array());
    EXPECT_EQ(host.post_json("/list_files", R"({"path":"/no/such/dir"})").json(), json::array());
    EXPECT_EQ(host.post_json("/list_files", R"({"path":"b.txt"})").json(), json::array());
}

// actionhost's additive "detail": the same entries in the same order, described by lstat: a link is a
// link (to a directory or nowhere), never its target's size or type.
TEST(HostFiles, ListFilesWithDetailDescribesEntriesWithoutFollowingLinks) {
    HostProcess host;
    const std::string wd = host.working_dir();
    write_file(wd + "/five.txt", "12345");
    fs::permissions(wd + "/five.txt", fs::perms(0751));
    fs::create_directories(wd + "/dir");
    fs::create_directory_symlink("/etc", wd + "/etc-link");
    fs::create_symlink("/no/such/target", wd + "/dangling");
    struct timespec times[2] = {{1700000000, 0}, {1700000000, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (wd + "/five.txt").c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
    json plain = host.post_json("/list_files", "{}").json();
    json detail = host.post_json("/list_files", R"({"detail":true})").json();
    EXPECT_EQ(plain, json({"dir/", "etc-link/", "dangling", "five.txt"}));
    ASSERT_EQ(detail.size(), 4u) << detail;
    EXPECT_EQ(detail[0], json({{"name", "dir"}, {"type", "dir"}, {"size", detail[0]["size"]}, {"mode", 0755}, {"mtime", detail[0]["mtime"]}}));
    EXPECT_EQ(detail[1].value("name", ""), "etc-link");
    EXPECT_EQ(detail[1].value("type", ""), "symlink");
    EXPECT_EQ(detail[2].value("type", ""), "symlink");
    EXPECT_EQ(detail[3], json({{"name", "five.txt"}, {"type", "file"}, {"size", 5}, {"mode", 0751}, {"mtime", 1700000000}}));
    EXPECT_EQ(host.post_json("/list_files", R"({"path":"/no/such","detail":true})").json(), json::array());
    EXPECT_EQ(host.post_json("/list_files", R"({"detail":"yes"})").status, 422);
}

TEST(HostFiles, UploadsAFileAndUnpacksAZip) {
    HostProcess host;
    const std::string wd = host.working_dir();
    auto r = host.upload("/upload_file?destination=" + wd + "/new/dir", "note.txt", "hello upload");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json(), json({{"filename", "note.txt"}, {"destination", wd + "/new/dir"}, {"recursive", false}}));
    EXPECT_EQ(read_file(wd + "/new/dir/note.txt"), "hello upload");
    // Overwrite.
    ASSERT_EQ(host.upload("/upload_file?destination=" + wd + "/new/dir", "note.txt", "second").status, 200);
    EXPECT_EQ(read_file(wd + "/new/dir/note.txt"), "second");
    TempDir d;
    auto zip = make_zip(d, {{"proj/src/main.c", "int main(){}"}, {"proj/README", "readme"}});
    auto z = host.upload("/upload_file?destination=" + wd + "&recursive=true", "proj.zip", zip);
    ASSERT_EQ(z.status, 200) << z.body;
    EXPECT_EQ(read_file(wd + "/proj/src/main.c"), "int main(){}");
    EXPECT_FALSE(fs::exists(wd + "/proj.zip"));
}

TEST(HostFiles, UploadRefusesZipSlipAndBadDestinations) {
    HostProcess host;
    const std::string wd = host.working_dir();
    TempDir d;
    auto zip = make_zip(d, {{"fine.txt", "ok"}, {"../../escape.txt", "evil"}});
    auto r = host.upload("/upload_file?destination=" + wd + "/in&recursive=true", "evil.zip", zip);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(r.json()["detail"].get<std::string>().find("outside the destination"), std::string::npos) << r.body;
    EXPECT_FALSE(fs::exists(wd + "/in/fine.txt"));
    EXPECT_FALSE(fs::exists(wd + "/escape.txt"));
    auto rel = host.upload("/upload_file?destination=relative/dir", "a.txt", "x");
    EXPECT_EQ(rel.status, 500);
    EXPECT_EQ(rel.json(), json({{"detail", "400: Destination must be an absolute path"}}));
    auto notzip = host.upload("/upload_file?destination=" + wd + "&recursive=true", "a.txt", "x");
    EXPECT_EQ(notzip.status, 500);
    EXPECT_EQ(notzip.json(), json({{"detail", "400: Recursive uploads must be zip files"}}));
    // A file name with directories is reduced to its base name: it cannot leave the destination.
    ASSERT_EQ(host.upload("/upload_file?destination=" + wd + "/in", "../../sneaky.txt", "x").status, 200);
    EXPECT_TRUE(fs::exists(wd + "/in/sneaky.txt"));
    EXPECT_FALSE(fs::exists(wd + "/sneaky.txt"));
}

TEST(HostFiles, DownloadZipsATreeAndRefusesBadPaths) {
    HostProcess host;
    const std::string wd = host.working_dir();
    write_file(wd + "/pkg/a.txt", "a");
    write_file(wd + "/pkg/sub/b.txt", "b");
    write_file(wd + "/pkg/sub/deeper/c.txt", "c");
    fs::create_directories(wd + "/pkg/empty/dir");
    auto r = host.get("/download_files?path=" + wd + "/pkg");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.headers["content-type"], "application/zip");
    EXPECT_EQ(r.headers["content-disposition"], "attachment; filename=\"pkg.zip\"");
    // OpenHands' archive has files only (os.walk + zipfile.write per file); ours adds an entry for each
    // directory below the root, so that modes, times and empty directories travel. zipfile reads both.
    EXPECT_EQ(names_in_zip(r.body), "['a.txt', 'empty/', 'empty/dir/', 'sub/', 'sub/b.txt', 'sub/deeper/', 'sub/deeper/c.txt']\n");
    auto file = host.get("/download_files?path=" + wd + "/pkg/a.txt");
    EXPECT_EQ(names_in_zip(file.body), "[]\n");
    auto rel = host.get("/download_files?path=pkg");
    EXPECT_EQ(rel.status, 500);
    EXPECT_EQ(rel.json(), json({{"detail", "400: Path must be an absolute path"}}));
    auto missing = host.get("/download_files?path=/no/such/thing");
    EXPECT_EQ(missing.status, 500);
    EXPECT_EQ(missing.json(), json({{"detail", "404: File not found"}}));
}
