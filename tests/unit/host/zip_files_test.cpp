#include "files/zip_files.hpp"

#include <actionhost/common/archive/zip_reader.hpp>
#include <actionhost/common/archive/zip_writer.hpp>
#include <fcntl.h>
#include <gtest/gtest.h>

#include <limits>
#include <sys/stat.h>
#include <unistd.h>

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
    // A link is packed as a link (its target's text), never followed: nothing of `outside` is read.
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
    // Directories have entries of their own (their modes and times; an empty one kept), the root none.
    EXPECT_EQ(r.output, "['a.txt', 'dir/', 'dir/b.txt', 'dir/deeper/', 'dir/deeper/c.txt', 'empty/', 'link']\n");
    auto link = run_process({"/usr/bin/python3", "-c", "import zipfile,sys,stat;z=zipfile.ZipFile(sys.argv[1]);i=z.getinfo('link');"
                             "print(stat.S_ISLNK(i.external_attr>>16), z.read(i).decode())", d / "out.zip"}, 30);
    EXPECT_EQ(link.output, "True " + (d / "outside") + "\n");
}

// Found by fuzz_zip: Poco (the zip library before minizip) allocated, filled and copied the size a ZIP64
// end-of-central-directory record declares before reading it — a 95-byte upload declaring 1.5 GB made the
// host touch 2.9 GB. minizip reads the record's fixed fields only, and the reader checks the end records
// (where they are, what they declare) before the library sees them: refused at once, nothing unpacked.
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
        EXPECT_NE(why.find("not a valid zip archive: "), std::string::npos)
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

// ---- Unix attributes: modes, symbolic links, modification times (zip_reader.hpp, zip_writer.hpp) ----

namespace {
namespace fs = std::filesystem;
using namespace actionhost::common::archive;

// Builds a zip with Python's zipfile, each entry (name, data, external_attr, create_system) as given:
// what another tool, or an attacker, may send.
void make_crafted_zip(const std::string &path, const std::vector<std::tuple<std::string, std::string, unsigned, int>> &entries) {
    std::string script = "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\n";
    for (const auto &[name, data, attr, system] : entries)
        script += "i=zipfile.ZipInfo('" + name + "',(2021,3,4,5,6,8))\ni.external_attr=" + std::to_string(attr) +
                  "\ni.create_system=" + std::to_string(system) + "\nz.writestr(i,'" + data + "')\n";
    script += "z.close()\n";
    auto r = run_process({"/usr/bin/python3", "-c", script, path}, 30);
    ASSERT_EQ(r.exit_code, 0) << r.output;
}
unsigned attr(unsigned mode) { return mode << 16; }
struct stat lstat_of(const std::string &p) {
    struct stat st{};
    ::lstat(p.c_str(), &st);
    return st;
}
std::string link_of(const std::string &p) {
    std::error_code ec;
    return fs::read_symlink(p, ec).string();
}
}  // namespace

TEST(ZipArchive, RoundTripKeepsModesLinksAndTimes) {
    TempDir d;
    write_file(d / "x.sh", "#!/bin/sh\necho ran\n");
    const int fd = ::open((d / "x.sh").c_str(), O_RDONLY);
    {
        auto w = ZipWriter::create(d / "rt.zip");
        ASSERT_TRUE(w);
        EXPECT_TRUE(w.value()->add_directory("top", {0750, 1600000000}));
        EXPECT_TRUE(w.value()->add_file("top/x.sh", fd, {04755, 1500000000}));
        EXPECT_TRUE(w.value()->add_symlink("top/alias", "x.sh", {0777, 1400000000}));
        EXPECT_TRUE(w.value()->add_bytes("top/plain.txt", "plain", {0600, 1300000000}));
        EXPECT_TRUE(w.value()->close());
    }
    ::close(fd);
    auto r = ZipReader::open(d / "rt.zip", {});
    ASSERT_TRUE(r) << r.error().message;
    auto &zip = *r.value();
    ASSERT_EQ(zip.entries().size(), 4u);
    EXPECT_EQ(zip.entries()[0].kind, ZipEntryKind::directory);
    EXPECT_EQ(zip.entries()[0].mode, 0750u);
    EXPECT_EQ(zip.entries()[1].kind, ZipEntryKind::file);
    EXPECT_EQ(zip.entries()[1].mode, 0755u) << "setuid comes out masked";
    EXPECT_EQ(zip.entries()[1].mtime, 1500000000);
    EXPECT_EQ(zip.entries()[2].kind, ZipEntryKind::symlink);
    EXPECT_EQ(zip.read_link(2).value(), "x.sh");
    EXPECT_EQ(zip.entries()[2].mtime, 1400000000);
    EXPECT_EQ(zip.entries()[3].mode, 0600u);
    std::string content;
    EXPECT_TRUE(zip.read(1, [&](std::string_view p) { content.append(p); return actionhost::common::ok(); }));
    EXPECT_EQ(content, "#!/bin/sh\necho ran\n");
    // Python's zipfile (OpenHands' side) reads it: names, contents (CRCs checked), the Unix mode, the link.
    auto py = run_process({"/usr/bin/python3", "-c",
                           "import zipfile,sys,stat\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n"
                           "for i in z.infolist(): print(i.filename, i.create_system, oct(i.external_attr>>16), z.read(i).decode().strip())",
                           d / "rt.zip"}, 30);
    EXPECT_EQ(py.output, "top/ 3 0o40750 \ntop/x.sh 3 0o104755 #!/bin/sh\necho ran\ntop/alias 3 0o120777 x.sh\n"
                         "top/plain.txt 3 0o100600 plain\n") << py.output;
}

// Times the 32-bit timestamp field cannot hold are clamped to its ends, never wrapped to another century
// (2200 would read back as 1927, 1900 as 2036).
TEST(ZipArchive, TimesOutOfTheFieldsRangeAreClampedNotWrapped) {
    TempDir d;
    {
        auto w = ZipWriter::create(d / "t.zip");
        ASSERT_TRUE(w);
        EXPECT_TRUE(w.value()->add_bytes("future", "f", {0644, 7258118400}));  // 2200-01-01
        EXPECT_TRUE(w.value()->add_bytes("past", "p", {0644, -2208988800}));    // 1900-01-01
        EXPECT_TRUE(w.value()->close());
    }
    auto r = ZipReader::open(d / "t.zip", {});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value()->entries()[0].mtime, std::numeric_limits<int32_t>::max());
    EXPECT_EQ(r.value()->entries()[1].mtime, std::numeric_limits<int32_t>::min());
}

TEST(Unzip, KeepsModesLinksAndTimesOfATreeZippedByZipTree) {
    TempDir d;
    write_file(d / "root/run.sh", "#!/bin/sh\necho ran\n");
    ::chmod((d / "root/run.sh").c_str(), 0750);
    write_file(d / "root/sub/data.txt", "data");
    fs::create_symlink("../run.sh", d / "root/sub/alias");
    const timespec times[2] = {{0, UTIME_OMIT}, {1500000000, 0}};
    ::utimensat(AT_FDCWD, (d / "root/sub/data.txt").c_str(), times, 0);
    ::utimensat(AT_FDCWD, (d / "root/sub/alias").c_str(), times, AT_SYMLINK_NOFOLLOW);
    ASSERT_TRUE(zip_tree(d / "root", d / "tree.zip"));
    fs::create_directory(d / "dest");
    ASSERT_TRUE(unzip_safely(d / "tree.zip", d / "dest", {}));
    EXPECT_EQ(lstat_of(d / "dest/run.sh").st_mode & 07777, 0750u);
    EXPECT_EQ(run_process({d / "dest/run.sh"}, 10).output, "ran\n");
    EXPECT_EQ(link_of(d / "dest/sub/alias"), "../run.sh");
    EXPECT_EQ(lstat_of(d / "dest/sub/alias").st_mtime, 1500000000);
    EXPECT_EQ(lstat_of(d / "dest/sub/data.txt").st_mtime, 1500000000);
    EXPECT_EQ(read_file(d / "dest/sub/alias"), "#!/bin/sh\necho ran\n");
}

// Python's zipfile without Unix attributes (create_system 0, external_attr 0, as a Windows tool or a
// writestr with a bare ZipInfo): files unpack as before, by the umask, no links, the DOS time kept.
TEST(Unzip, AnArchiveWithoutUnixAttributesUnpacksAsBefore) {
    TempDir d;
    make_crafted_zip(d / "plain.zip", {{"dir/a.txt", "a", 0, 0}, {"b.txt", "/etc/passwd", 0, 0}});
    fs::create_directory(d / "dest");
    ASSERT_TRUE(unzip_safely(d / "plain.zip", d / "dest", {}));
    const mode_t mask = ::umask(022);
    ::umask(mask);
    EXPECT_EQ(lstat_of(d / "dest/dir/a.txt").st_mode & 07777, 0666u & ~mask);
    EXPECT_TRUE(S_ISREG(lstat_of(d / "dest/b.txt").st_mode)) << "no Unix attributes: no link";
    EXPECT_EQ(read_file(d / "dest/b.txt"), "/etc/passwd");
    std::tm tm{.tm_sec = 8, .tm_min = 6, .tm_hour = 5, .tm_mday = 4, .tm_mon = 2, .tm_year = 121, .tm_wday = 0, .tm_yday = 0,
               .tm_isdst = -1, .tm_gmtoff = 0, .tm_zone = nullptr};
    EXPECT_EQ(lstat_of(d / "dest/dir/a.txt").st_mtime, std::mktime(&tm));
}

// Hostile archives with crafted Unix attributes: each refused with why, nothing written anywhere.
TEST(Unzip, HostileUnixAttributesAreRefusedAndNothingIsWritten) {
    TempDir d;
    write_file(d / "outside/secret", "secret");
    const std::string outside = d / "outside";
    struct Case {
        std::string label;
        std::vector<std::tuple<std::string, std::string, unsigned, int>> entries;
        std::string why;
    };
    const std::vector<Case> cases = {
        {"a link out, then a file through it", {{"a", outside, attr(S_IFLNK | 0777), 3}, {"a/secret", "owned", attr(S_IFREG | 0644), 3}},
         "leads out of the destination"},
        {"a relative link climbing out", {{"up", "../../outside", attr(S_IFLNK | 0777), 3}}, "leads out of the destination"},
        {"a link out through another link", {{"x/l1", "..", attr(S_IFLNK | 0777), 3}, {"m", "x/l1/..", attr(S_IFLNK | 0777), 3}},
         "through other links"},
        {"a link and a directory at one name", {{"a", "b", attr(S_IFLNK | 0777), 3}, {"a/f", "x", attr(S_IFREG | 0644), 3}},
         "something else at that name"},
        {"a FIFO", {{"fifo", "", attr(S_IFIFO | 0644), 3}}, "never created"},
        {"a device", {{"dev", "", attr(S_IFCHR | 0644), 3}}, "never created"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.label);
        fs::remove_all(d / "dest");
        fs::create_directory(d / "dest");
        make_crafted_zip(d / "evil.zip", c.entries);
        const std::string why = why_not(unzip_safely(d / "evil.zip", d / "dest", {}));
        EXPECT_NE(why.find(c.why), std::string::npos) << why;
        EXPECT_TRUE(fs::is_empty(d / "dest"));
        EXPECT_EQ(read_file(d / "outside/secret"), "secret");
        EXPECT_EQ(std::distance(fs::directory_iterator(outside), fs::directory_iterator()), 1);
    }
}

// setuid, setgid and sticky bits never come from an archive; a link that stays inside is made.
TEST(Unzip, ModesAreMaskedAndInsideLinksAreMade) {
    TempDir d;
    make_crafted_zip(d / "m.zip", {{"s/suid", "x", attr(S_IFREG | 06755), 3},
                                   {"s/sticky", "y", attr(S_IFREG | 01777), 3},
                                   {"s/ok", "../s/suid", attr(S_IFLNK | 0777), 3}});
    fs::create_directory(d / "dest");
    ASSERT_TRUE(unzip_safely(d / "m.zip", d / "dest", {}));
    EXPECT_EQ(lstat_of(d / "dest/s/suid").st_mode & 07777, 0755u);
    EXPECT_EQ(lstat_of(d / "dest/s/sticky").st_mode & 07777, 0777u);
    EXPECT_EQ(link_of(d / "dest/s/ok"), "../s/suid");
}

TEST(ZipArchive, LinkStaysInsideJudgesTheText) {
    EXPECT_TRUE(link_stays_inside("a/b", "c"));
    EXPECT_TRUE(link_stays_inside("a/b", "../c"));
    EXPECT_FALSE(link_stays_inside("a/b", "../../c"));
    EXPECT_FALSE(link_stays_inside("a/b", "/etc/shadow"));
    EXPECT_FALSE(link_stays_inside("b", "x/../../y"));
    EXPECT_TRUE(link_stays_inside("b", "x/./../y"));
    EXPECT_FALSE(link_stays_inside("b", ""));
}

// A directory entry's mode (masked: no setgid or sticky bit) and time land on the directory once its
// contents are in, on one already there as well; an entry naming the destination itself changes
// nothing, and a link where the directory goes is replaced, never followed to chmod what it points at.
TEST(Unzip, DirectoryEntriesSetModesAndTimesLastWithoutFollowingLinks) {
    TempDir d;
    fs::create_directories(d / "outside");
    ::chmod((d / "outside").c_str(), 0700);
    make_crafted_zip(d / "dirs.zip", {{"./", "", attr(S_IFDIR | 0777), 3},
                                      {"shared/", "", attr(S_IFDIR | 02777), 3},
                                      {"shared/inner/", "", attr(S_IFDIR | 01500), 3},
                                      {"shared/inner/f", "x", attr(S_IFREG | 0644), 3},
                                      {"linked/", "", attr(S_IFDIR | 0777), 3},
                                      {"linked/f", "y", attr(S_IFREG | 0644), 3}});
    fs::create_directories(d / "dest/shared");
    ::chmod((d / "dest").c_str(), 0755);
    ::chmod((d / "dest/shared").c_str(), 0700);
    fs::create_directory_symlink(d / "outside", d / "dest/linked");
    ASSERT_TRUE(unzip_safely(d / "dirs.zip", d / "dest", {}));
    EXPECT_EQ(lstat_of(d / "dest").st_mode & 07777, 0755u) << "the destination itself is not the archive's";
    EXPECT_EQ(lstat_of(d / "dest/shared").st_mode & 07777, 0777u);
    EXPECT_EQ(lstat_of(d / "dest/shared/inner").st_mode & 07777, 0500u);
    EXPECT_EQ(read_file(d / "dest/shared/inner/f"), "x") << "filled before it lost its write permission";
    std::tm tm{.tm_sec = 8, .tm_min = 6, .tm_hour = 5, .tm_mday = 4, .tm_mon = 2, .tm_year = 121, .tm_wday = 0, .tm_yday = 0,
               .tm_isdst = -1, .tm_gmtoff = 0, .tm_zone = nullptr};
    EXPECT_EQ(lstat_of(d / "dest/shared/inner").st_mtime, std::mktime(&tm));
    EXPECT_EQ(lstat_of(d / "dest/shared").st_mtime, std::mktime(&tm));
    EXPECT_TRUE(S_ISDIR(lstat_of(d / "dest/linked").st_mode)) << "the link was replaced by the archive's directory";
    EXPECT_EQ(lstat_of(d / "outside").st_mode & 07777, 0700u) << "what the link pointed at was not changed";
    EXPECT_TRUE(fs::is_empty(d / "outside"));
    ::chmod((d / "dest/shared/inner").c_str(), 0700);  // so that the TempDir can go
}
