#include "files/zip_files.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::host;
using namespace actionhost::testing;

namespace {
// Builds a zip with Python's zipfile, which keeps hostile names exactly as given.
void make_zip(const std::string &path, const std::vector<std::pair<std::string, std::string>> &entries) {
    std::string script = "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\n";
    for (const auto &[name, data] : entries) script += "z.writestr(" + std::string("'") + name + "','" + data + "')\n";
    script += "z.close()\n";
    auto r = run_process({"/usr/bin/python3", "-c", script, path}, 30);
    ASSERT_EQ(r.exit_code, 0) << r.output;
}
// The refusal's text, or "" when it was not refused (the expectations on the text then fail).
std::string why_not(const actionhost::common::Status &s) { return s ? std::string() : s.error().message; }
}  // namespace

TEST(Unzip, UnpacksNestedEntries) {
    TempDir d;
    make_zip(d / "a.zip", {{"top/one.txt", "1"}, {"top/sub/two.txt", "2"}, {"three.txt", "3"}});
    std::filesystem::create_directory(d / "dest");
    EXPECT_TRUE(unzip_safely(d / "a.zip", d / "dest", {}));
    EXPECT_EQ(read_file(d / "dest/top/sub/two.txt"), "2");
    EXPECT_EQ(read_file(d / "dest/three.txt"), "3");
    // Only the unpacked entries: no staging directory left behind.
    int n = 0;
    for (auto &e : std::filesystem::directory_iterator(d / "dest")) n += e.path().filename().string()[0] == '.';
    EXPECT_EQ(n, 0);
}

TEST(Unzip, RefusesZipSlipAndChangesNothing) {
    TempDir d;
    make_zip(d / "evil.zip", {{"ok.txt", "fine"}, {"../escaped.txt", "evil"}});
    std::filesystem::create_directory(d / "dest");
    const std::string why = why_not(unzip_safely(d / "evil.zip", d / "dest", {}));
    EXPECT_NE(why.find("would be written outside the destination"), std::string::npos) << why;
    EXPECT_FALSE(std::filesystem::exists(d / "escaped.txt"));
    EXPECT_TRUE(std::filesystem::is_empty(d / "dest"));
}

TEST(Unzip, RefusesAbsoluteNames) {
    TempDir d;
    make_zip(d / "abs.zip", {{"/tmp/ah-absolute-escape.txt", "x"}});
    std::filesystem::create_directory(d / "dest");
    EXPECT_NE(why_not(unzip_safely(d / "abs.zip", d / "dest", {})).find("absolute path"), std::string::npos);
}

TEST(Unzip, RefusesArchivesThatUnpackBeyondTheLimit) {
    TempDir d;
    make_zip(d / "big.zip", {{"a.txt", std::string(5000, 'a')}});
    std::filesystem::create_directory(d / "dest");
    UnzipLimits limits;
    limits.max_total_bytes = 1000;
    EXPECT_NE(why_not(unzip_safely(d / "big.zip", d / "dest", limits)).find("more than 1000 bytes"), std::string::npos);
    EXPECT_TRUE(std::filesystem::is_empty(d / "dest"));
}

TEST(ZipTree, ZipsFilesRelativeToTheRootWithoutFollowingLinks) {
    TempDir d;
    write_file(d / "root/a.txt", "a");
    write_file(d / "root/dir/b.txt", "b");
    write_file(d / "root/dir/deeper/c.txt", "c");
    std::filesystem::create_directories(d / "root/empty");
    write_file(d / "outside/secret.txt", "secret");
    std::filesystem::create_directory_symlink(d / "outside", d / "root/link");
    ASSERT_TRUE(zip_tree(d / "root", d / "out.zip"));
    auto r = run_process({"/usr/bin/python3", "-c", "import zipfile,sys;print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))",
                          d / "out.zip"}, 30);
    EXPECT_EQ(r.output, "['a.txt', 'dir/b.txt', 'dir/deeper/c.txt']\n");  // no directory entries, as OpenHands
}

// Found by fuzz_zip: Poco allocates, fills and copies the size a ZIP64 end-of-central-directory record
// declares before reading it — a 95-byte upload declaring 1.5 GB made the host touch 2.9 GB. The record
// is now checked as Poco reads it (Zip64RecordGuard): refused at once, nothing unpacked, no allocation.
TEST(Unzip, Zip64RecordDeclaringAHugeSizeIsRefused) {
    TempDir d;
    const std::string seed = std::string(AH_SOURCE_DIR) + "/fuzz/zip/corpus/regression-zip64-record-size.zip";
    std::string large = std::string("PK\x06\x06", 4);
    for (int i = 0; i < 8; ++i) large += static_cast<char>((1'500'000'000ULL >> (8 * i)) & 0xff);  // 1.5 GB
    large += std::string(80, '\x06');
    write_file(d / "large.zip", large);
    write_file(d / "cut.zip", std::string("PK\x06\x06\0\0\0\0i", 9));  // the size field cut off: the rest is not zero
    for (const std::string &archive : {seed, d / "large.zip", d / "cut.zip"}) {
        std::filesystem::remove_all(d / "dest");
        std::filesystem::create_directory(d / "dest");
        const auto t0 = std::chrono::steady_clock::now();
        const std::string why = why_not(unzip_safely(archive, d / "dest", {}));
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2)) << archive;  // was 15 s of memset/copy
        EXPECT_NE(why.find("not a valid zip archive: a ZIP64 end-of-central-directory record "), std::string::npos)
            << archive << ": " << why;
        EXPECT_TRUE(std::filesystem::is_empty(d / "dest")) << archive;
    }
}

// A real ZIP64 archive (zipfile with force_zip64: ZIP64 records that fit the file) still unpacks.
TEST(Unzip, GenuineZip64ArchiveUnpacks) {
    TempDir d;
    const std::string script =
        "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED,allowZip64=True)\n"
        "with z.open('big/one.txt','w',force_zip64=True) as f: f.write(b'one')\n"
        "z.writestr('two.txt','two')\nz.close()\n";
    auto r = run_process({"/usr/bin/python3", "-c", script, d / "z64.zip"}, 30);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::filesystem::create_directory(d / "dest");
    EXPECT_TRUE(unzip_safely(d / "z64.zip", d / "dest", {}));
    EXPECT_EQ(read_file(d / "dest/big/one.txt"), "one");
    EXPECT_EQ(read_file(d / "dest/two.txt"), "two");
}
