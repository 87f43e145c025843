// Path traversal and symlink escapes on every file action and endpoint, against the real host. Confined
// (ACTIONHOST_EDITOR_ROOTS): every way out — absolute, `..`, a link to a directory, a link to a file — is a
// clear refusal and nothing on disk changes. Unconfined (as OpenHands): uploads and downloads still cannot
// leave their tree.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"
#include "tree_snapshot.hpp"

using namespace actionhost::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Built by Python's zipfile: Poco's writer refuses the hostile names these tests need.
std::string zip_of(const std::vector<std::pair<std::string, std::string>> &entries) {
    TempDir d;
    write_file(d / "entries.json", json(entries).dump());
    const auto r = run_process({"/usr/bin/python3", "-c",
                                "import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[2],'w',zipfile.ZIP_DEFLATED)\n"
                                "for n,d in json.load(open(sys.argv[1])): z.writestr(n,d)\nz.close()\n",
                                d / "entries.json", d / "x.zip"}, 60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(d / "x.zip");
}

// A working directory with an ordinary file, a link to a directory outside and a link to a file outside.
struct EscapeFixture {
    TempDir work{"ahwork"}, outside{"ahoutside"};
    EscapeFixture() {
        write_file(work / "inside.txt", "inside\n");
        write_file(outside / "secret.txt", "secret\n");
        fs::create_directory_symlink(outside.path(), work / "link_dir");
        fs::create_symlink(outside / "secret.txt", work / "link_file");
    }
    // Every spelling of a path outside the working directory; relative ones resolve against it.
    std::vector<std::string> escapes() const {
        const std::string up = "../" + fs::path(outside.path()).filename().string();
        return {outside / "secret.txt", work.path() + "/" + up + "/secret.txt", up + "/secret.txt",
                work / "link_dir/secret.txt", "link_dir/secret.txt", work / "link_file", "link_file",
                work / "link_dir/new.txt"};
    }
};

bool refused(const json &obs) {
    const std::string content = obs.value("content", "");
    return content.find("outside the directories") != std::string::npos;
}

}  // namespace

TEST(HardeningPaths, ConfinedHostRefusesEveryEscapeOnEveryFileAction) {
    EscapeFixture f;
    HostProcess host(HostOptions{.env = {{"ACTIONHOST_EDITOR_ROOTS", f.work.path()}}, .working_dir = f.work.path()});
    const auto work_before = snapshot_tree(f.work.path()), outside_before = snapshot_tree(f.outside.path());
    // The control: inside the root everything works, so the refusals below are about the paths.
    EXPECT_EQ(host.execute({{"action", "read"}, {"args", {{"path", "inside.txt"}}}})["content"], "inside\n");
    for (const std::string &p : f.escapes()) {
        SCOPED_TRACE(p);
        const json read = host.execute({{"action", "read"}, {"args", {{"path", p}}}});
        EXPECT_EQ(read["observation"], "error") << read.dump();
        EXPECT_TRUE(refused(read)) << read.dump();
        const json write = host.execute({{"action", "write"}, {"args", {{"path", p}, {"content", "pwned\n"}}}});
        EXPECT_EQ(write["observation"], "error") << write.dump();
        EXPECT_TRUE(refused(write)) << write.dump();
        if (p[0] == '/') {  // the editor takes absolute paths only
            const json view = host.execute({{"action", "edit"}, {"args", {{"command", "view"}, {"path", p}}}});
            EXPECT_TRUE(refused(view)) << view.dump();
            const json create = host.execute({{"action", "edit"}, {"args", {{"command", "create"}, {"path", p}, {"file_text", "pwned\n"}}}});
            EXPECT_TRUE(refused(create)) << create.dump();
            const json oh_aci = host.execute({{"action", "read"}, {"args", {{"path", p}, {"impl_source", "oh_aci"}}}});
            EXPECT_TRUE(refused(oh_aci)) << oh_aci.dump();
        }
    }
    for (const std::string &dir : {f.outside.path(), f.work / "link_dir", std::string("link_dir"), f.work.path() + "/.."}) {
        SCOPED_TRACE(dir);
        const auto list = host.post_json("/list_files", json({{"path", dir}}).dump());
        EXPECT_EQ(list.status, 403) << list.body;
        EXPECT_NE(list.json()["detail"].get<std::string>().find("outside the directories"), std::string::npos) << list.body;
        if (dir[0] != '/') continue;
        const auto up = host.upload("/upload_file?destination=" + dir, "dropped.txt", "pwned\n");
        EXPECT_EQ(up.status, 403) << up.body;
        const auto down = host.get("/download_files?path=" + dir);
        EXPECT_EQ(down.status, 403) << down.body;
    }
    const auto down_file = host.get("/download_files?path=" + f.work / "link_file");
    EXPECT_EQ(down_file.status, 403) << down_file.body;
    EXPECT_EQ(snapshot_tree(f.work.path()), work_before);
    EXPECT_EQ(snapshot_tree(f.outside.path()), outside_before);
    EXPECT_EQ(host.get("/alive").status, 200);
}

TEST(HardeningPaths, UnconfinedUploadsAndDownloadsStayInTheirTree) {
    EscapeFixture f;
    HostProcess host(HostOptions{.working_dir = f.work.path()});
    const auto outside_before = snapshot_tree(f.outside.path());
    const std::string dest = f.work / "dest";
    fs::create_directories(dest);
    fs::create_directory_symlink(f.outside.path(), dest + "/link_dir");
    const auto dest_before = snapshot_tree(dest);
    // Zip-slip: `..` and absolute entry names are refused before anything is unpacked.
    for (const auto &entries : std::vector<std::vector<std::pair<std::string, std::string>>>{
             {{"ok.txt", "ok"}, {"../escape.txt", "pwned"}},
             {{"ok.txt", "ok"}, {"a/../../escape.txt", "pwned"}},
             {{"ok.txt", "ok"}, {f.outside / "abs.txt", "pwned"}}}) {
        SCOPED_TRACE(entries[1].first);
        const auto r = host.upload("/upload_file?destination=" + dest + "&recursive=true", "slip.zip", zip_of(entries));
        EXPECT_EQ(r.status, 400) << r.body;
        EXPECT_NE(r.json()["detail"].get<std::string>().find("nothing was unpacked"), std::string::npos) << r.body;
        EXPECT_EQ(snapshot_tree(dest), dest_before);
    }
    // An entry below an existing link replaces the link: it is never written through it.
    const auto through = host.upload("/upload_file?destination=" + dest + "&recursive=true", "through.zip",
                                     zip_of({{"link_dir/secret.txt", "pwned"}}));
    EXPECT_EQ(through.status, 200) << through.body;
    EXPECT_EQ(read_file(dest + "/link_dir/secret.txt"), "pwned");
    EXPECT_FALSE(fs::is_symlink(dest + "/link_dir"));
    // A plain upload named like a path lands in the destination under its base name.
    EXPECT_EQ(host.upload("/upload_file?destination=" + dest, "../../../" + f.outside / "secret.txt", "pwned").status, 200);
    EXPECT_EQ(read_file(dest + "/secret.txt"), "pwned");
    // Downloads never follow links out of the tree: a link is packed as a link, its text only (the
    // path it names), never the content it leads to.
    const auto down = host.get("/download_files?path=" + f.work.path());
    ASSERT_EQ(down.status, 200);
    EXPECT_EQ(down.body.find("secret\n"), std::string::npos);
    {
        TempDir d;
        write_file(d / "down.zip", down.body);
        const auto r = run_process({"/usr/bin/python3", "-c",
                                    "import stat, sys, zipfile\n"
                                    "z = zipfile.ZipFile(sys.argv[1])\n"
                                    "i = z.getinfo('link_file')\n"
                                    "print(stat.S_ISLNK(i.external_attr >> 16), z.read(i).decode())\n",
                                    d / "down.zip"},
                                   30);
        EXPECT_EQ(r.output, "True " + (f.outside / "secret.txt") + "\n") << "the link as a link, its text only";
    }
    EXPECT_EQ(snapshot_tree(f.outside.path()), outside_before);
}

TEST(HardeningPaths, NulBytesInPathsAreRefusedNotTruncated) {
    TempDir work{"ahwork"};
    HostProcess host(HostOptions{.working_dir = work.path()});
    const std::string nul_path = work.path() + std::string("/cut\0.txt", 8);
    const json write = host.execute({{"action", "write"}, {"args", {{"path", nul_path}, {"content", "x"}}}});
    EXPECT_EQ(write["observation"], "error") << write.dump();
    EXPECT_NE(write["content"].get<std::string>().find("NUL byte"), std::string::npos) << write.dump();
    const json read = host.execute({{"action", "read"}, {"args", {{"path", nul_path}}}});
    EXPECT_EQ(read["observation"], "error") << read.dump();
    const json edit = host.execute({{"action", "edit"}, {"args", {{"command", "create"}, {"path", nul_path}, {"file_text", "x"}}}});
    EXPECT_EQ(edit["content"].get<std::string>().rfind("ERROR:", 0), 0u) << edit.dump();
    EXPECT_EQ(host.post_json("/list_files", json({{"path", nul_path}}).dump()).status, 403);
    EXPECT_TRUE(snapshot_tree(work.path()).empty()) << "something was written";
}
