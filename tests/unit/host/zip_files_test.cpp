#include "files/zip_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_process.hpp"
#include "support/sanitizers.hpp"
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
}  // namespace

TEST(Unzip, UnpacksNestedEntries) {
    TempDir d;
    make_zip(d / "a.zip", {{"top/one.txt", "1"}, {"top/sub/two.txt", "2"}, {"three.txt", "3"}});
    std::filesystem::create_directory(d / "dest");
    EXPECT_EQ(unzip_safely(d / "a.zip", d / "dest", {}), "");
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
    const std::string why = unzip_safely(d / "evil.zip", d / "dest", {});
    EXPECT_NE(why.find("would be written outside the destination"), std::string::npos) << why;
    EXPECT_FALSE(std::filesystem::exists(d / "escaped.txt"));
    EXPECT_TRUE(std::filesystem::is_empty(d / "dest"));
}

TEST(Unzip, RefusesAbsoluteNames) {
    TempDir d;
    make_zip(d / "abs.zip", {{"/tmp/ah-absolute-escape.txt", "x"}});
    std::filesystem::create_directory(d / "dest");
    EXPECT_NE(unzip_safely(d / "abs.zip", d / "dest", {}).find("absolute path"), std::string::npos);
}

TEST(Unzip, RefusesArchivesThatUnpackBeyondTheLimit) {
    TempDir d;
    make_zip(d / "big.zip", {{"a.txt", std::string(5000, 'a')}});
    std::filesystem::create_directory(d / "dest");
    UnzipLimits limits;
    limits.max_total_bytes = 1000;
    EXPECT_NE(unzip_safely(d / "big.zip", d / "dest", limits).find("more than 1000 bytes"), std::string::npos);
    EXPECT_TRUE(std::filesystem::is_empty(d / "dest"));
}

TEST(ZipTree, ZipsFilesRelativeToTheRootWithoutFollowingLinks) {
    TempDir d;
    write_file(d / "root/a.txt", "a");
    write_file(d / "root/dir/b.txt", "b");
    write_file(d / "outside/secret.txt", "secret");
    std::filesystem::create_directory_symlink(d / "outside", d / "root/link");
    ASSERT_EQ(zip_tree(d / "root", d / "out.zip"), "");
    auto r = run_process({"/usr/bin/python3", "-c", "import zipfile,sys;print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))",
                          d / "out.zip"}, 30);
    EXPECT_EQ(r.output, "['a.txt', 'dir/b.txt']\n");
}

// Found by fuzz_zip: a ZIP64 end-of-central-directory record declaring a size far beyond the file makes
// Poco allocate that size before reading. Production gets a clean refusal (std::bad_alloc for an
// impossible size, a short read for a merely large one) and unpacks nothing. Under ASan the
// allocation itself is fatal by design, so this check runs in the plain build only.
TEST(Unzip, Zip64RecordDeclaringAHugeSizeIsRefused) {
    if (kAddressSanitizer) GTEST_SKIP() << "ASan aborts on the allocation Poco attempts (the plain build checks this)";
    TempDir d;
    const std::string seed = std::string(AH_SOURCE_DIR) + "/fuzz/zip/corpus/regression-zip64-record-size.zip";
    std::string large = std::string("PK\x06\x06", 4);
    for (int i = 0; i < 8; ++i) large += static_cast<char>((1'500'000'000ULL >> (8 * i)) & 0xff);  // 1.5 GB
    large += std::string(80, '\x06');
    write_file(d / "large.zip", large);
    for (const std::string &archive : {seed, d / "large.zip"}) {
        std::filesystem::remove_all(d / "dest");
        std::filesystem::create_directory(d / "dest");
        const std::string why = unzip_safely(archive, d / "dest", {});
        EXPECT_NE(why.find("not a valid zip archive"), std::string::npos) << archive << ": " << why;
        EXPECT_TRUE(std::filesystem::is_empty(d / "dest")) << archive;
    }
}
