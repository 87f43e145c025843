// copy_to / copy_from through real backends (OpenHands' Runtime.copy_to/copy_from), and the ahctl commands of
// the base services end to end: env set, cp with sandbox:PATH, git clone/changes/diff, microagents.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/file_copy.hpp>
#include <actionhost/client/shell_quote.hpp>
#include <actionhost/common/json_write.hpp>
#include <algorithm>
#include <filesystem>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>

#include "services_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace services_test;
using namespace actionhost::client;
using actionhost::testing::read_file;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string q(const std::string &s) { return "'" + s + "'"; }

class Copy : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Copy, FilesAndDirectoriesBothWays) {
    auto s = start(GetParam());
    auto &rt = *s->runtime;
    TempDir local("ahsvc-local");
    std::string binary("\x00\x01\xff\xfe zip \x89PNG\r\n", 14);
    write_file(local / "one file.txt", "first");
    write_file(local / "tree/inner/two.bin", binary);
    write_file(local / "tree/ü dir/three.txt", "third\n");

    const std::string dest = s->workspace_inside + "/in";
    copy_to(rt.wire(), local / "one file.txt", dest);
    copy_to(rt.wire(), local / "tree", dest, true);
    EXPECT_EQ(read_file(s->workspace->path() + "/in/one file.txt"), "first");
    EXPECT_EQ(read_file(s->workspace->path() + "/in/tree/inner/two.bin"), binary);
    EXPECT_EQ(read_file(s->workspace->path() + "/in/tree/ü dir/three.txt"), "third\n");
    EXPECT_THROW(copy_to(rt.wire(), local / "missing", dest), WireError);

    // copy_from: a directory's zip holds names relative to it; a file's holds the file.
    auto dir_entries = read_zip(copy_from(rt.wire(), dest + "/tree"));
    std::vector<std::string> names;
    for (const auto &e : dir_entries) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"inner/two.bin", "ü dir/three.txt"}));
    auto file_entries = read_zip(copy_from(rt.wire(), dest + "/tree/inner/two.bin"));
    ASSERT_EQ(file_entries.size(), 1u);
    EXPECT_EQ(file_entries[0].name, "two.bin");
    EXPECT_EQ(file_entries[0].content, binary);

    TempDir back("ahsvc-back");
    copy_from_into(rt.wire(), dest + "/tree", back.path());
    EXPECT_EQ(read_file(back / "tree/inner/two.bin"), binary);
    EXPECT_EQ(read_file(back / "tree/ü dir/three.txt"), "third\n");
    copy_from_into(rt.wire(), dest + "/one file.txt", back / "files");
    EXPECT_EQ(read_file(back / "files/one file.txt"), "first");
    try {
        copy_from(rt.wire(), dest + "/nope");
        FAIL() << "a missing path was copied";
    } catch (const WireError &e) {
        EXPECT_EQ(e.detail(), "404: File not found");
    }
}

INSTANTIATE_TEST_SUITE_P(Runtimes, Copy, ::testing::Values("local", "sandbox"), [](const auto &info) { return info.param; });

// What is copied in belongs to the user commands run as (openhands), not to the host's root, so the agent
// can edit it: the file, a directory's entries, and the directories of the destination the copy made —
// in the workspace and elsewhere (/tmp).
TEST(CopyOwnership, WhatIsCopiedInBelongsToTheSandboxUser) {
    auto s = start("sandbox", [](RuntimeOptions &o) { o.config.set("core.run_as_openhands", true); });
    auto &rt = *s->runtime;
    ASSERT_EQ(content(run(rt, "id -un")), "openhands");
    TempDir local("ahsvc-own");
    write_file(local / "note.txt", "note\n");
    write_file(local / "tree/sub/deep.txt", "deep\n");
    for (const std::string &dest : {s->workspace_inside + "/made/here", std::string("/tmp/made/here")}) {
        copy_to(rt.wire(), local / "note.txt", dest);
        copy_to(rt.wire(), local / "tree", dest, true);
        const std::string paths = q(dest + "/note.txt") + " " + q(dest + "/tree") + " " + q(dest + "/tree/sub") + " " +
                                  q(dest + "/tree/sub/deep.txt") + " " + q(dest) + " " + q(fs::path(dest).parent_path().string());
        EXPECT_EQ(content(run(rt, "stat -c %U " + paths + " | sort -u")), "openhands") << dest;
        // The agent edits and removes them.
        const auto edited = run(rt, "cd " + q(dest) + " && echo more >> note.txt && echo x > tree/sub/new.txt && rm tree/sub/deep.txt && cat note.txt");
        EXPECT_EQ(exit_code(edited), 0) << edited.dump();
        EXPECT_EQ(content(edited), "note\nmore");
    }
}

// A destination the agent made a link (`/workspace/out -> /root`): the host (root inside) never follows
// the agent's link, so the user's upload never lands, owned by the agent, in a directory the agent picked.
// Links of the host's own user (an image's /var/run -> /run) are followed.
TEST(CopyOwnership, AnUploadNeverFollowsALinkTheAgentPlanted) {
    auto s = start("sandbox", [](RuntimeOptions &o) { o.config.set("core.run_as_openhands", true); });
    auto &rt = *s->runtime;
    ASSERT_EQ(content(run(rt, "id -un")), "openhands");
    TempDir local("ahsvc-own-link");
    write_file(local / "up.txt", "up\n");
    write_file(local / "tree/inner.txt", "inner\n");
    const std::string ws = s->workspace_inside;
    ASSERT_EQ(exit_code(run(rt, "ln -sfn /root " + q(ws + "/out") + " && mkdir -p " + q(ws + "/d") + " && ln -sfn /etc " +
                                    q(ws + "/d/deeper"))),
              0);
    for (const std::string &dest : {ws + "/out", ws + "/out/newdir", ws + "/d/deeper/x"}) {
        try {
            copy_to(rt.wire(), local / "up.txt", dest);
            ADD_FAILURE() << "an upload went through the agent's link at " << dest;
        } catch (const WireError &e) {
            EXPECT_NE(std::string(e.what()).find("symbolic link of another user"), std::string::npos) << e.what();
        }
        try {
            copy_to(rt.wire(), local / "tree", dest, true);
            ADD_FAILURE() << "a tree went through the agent's link at " << dest;
        } catch (const WireError &e) {
            EXPECT_NE(std::string(e.what()).find("symbolic link of another user"), std::string::npos) << e.what();
        }
    }
    // The host's own view: nothing arrived in /root or /etc (read through the host, which is root inside).
    for (const char *p : {"/root/up.txt", "/root/newdir", "/root/tree", "/etc/x"}) {
        const auto listed = rt.wire().list_files(std::string(p).substr(0, std::string(p).rfind('/')));
        const std::string name = std::string(p).substr(std::string(p).rfind('/') + 1);
        for (const auto &n : listed) EXPECT_NE(n.get<std::string>().substr(0, name.size() + 1), name + "/") << p;
        for (const auto &n : listed) EXPECT_NE(n.get<std::string>(), name) << p;
    }
    // A path with no link of the agent's still works, and a missing tail is made.
    copy_to(rt.wire(), local / "up.txt", ws + "/d/fresh/dir");
    EXPECT_EQ(content(run(rt, "cat " + q(ws + "/d/fresh/dir/up.txt"))), "up");
}

// ahctl cp / copy_to / copy_from_into keep modes, symbolic links (as links, never followed) and
// modification times both ways, in a real sandbox; links that lead out are skipped with a note, and a
// link to /etc/shadow in the sandbox arrives as its target's text, never the file.
TEST(CopyAttributes, ModesLinksAndTimesBothWays) {
    auto s = start("sandbox", [](RuntimeOptions &o) { o.config.set("core.run_as_openhands", true); });
    auto &rt = *s->runtime;
    TempDir local("ahsvc-attr");
    write_file(local / "tree/x.sh", "#!/bin/sh\necho ran\n");
    ::chmod((local / "tree/x.sh").c_str(), 0755);
    write_file(local / "tree/sub/data.txt", "data\n");
    fs::create_symlink("../x.sh", local / "tree/sub/alias");
    fs::create_symlink("/etc/passwd", local / "tree/absolute");
    fs::create_symlink("../../elsewhere", local / "tree/climbing");
    fs::create_directories(local / "tree/private/empty");
    ::chmod((local / "tree/private").c_str(), 0700);
    ::chmod((local / "tree").c_str(), 0750);
    const timespec old_time[2] = {{0, UTIME_OMIT}, {1500000000, 0}};
    const timespec dir_time[2] = {{0, UTIME_OMIT}, {1300000000, 0}};
    ::utimensat(AT_FDCWD, (local / "tree/sub/data.txt").c_str(), old_time, 0);
    ::utimensat(AT_FDCWD, (local / "tree/x.sh").c_str(), old_time, 0);
    for (const char *dir : {"tree/private/empty", "tree/private", "tree/sub", "tree"})
        ::utimensat(AT_FDCWD, (local / dir).c_str(), dir_time, 0);
    std::vector<std::string> skipped;
    CopyOptions options;
    options.skipped = &skipped;
    const std::string dest = s->workspace_inside + "/attr";
    copy_to(rt.wire(), local / "tree", dest, true, options);
    copy_to(rt.wire(), local / "tree/x.sh", dest + "/single");
    EXPECT_EQ(skipped.size(), 2u) << ::testing::PrintToString(skipped);
    const auto in = run(rt, "cd " + q(dest) + " && ./tree/x.sh && ./single/x.sh && readlink tree/sub/alias && tree/sub/alias && "
                            "stat -c '%Y %a' tree/sub/data.txt tree/x.sh single/x.sh && stat -c %U tree/sub/alias && "
                            "{ test -e tree/absolute || test -L tree/absolute || test -L tree/climbing || echo no-out-links; }");
    EXPECT_EQ(content(in), "ran\nran\n../x.sh\nran\n1500000000 644\n1500000000 755\n1500000000 755\nopenhands\nno-out-links") << actionhost::common::dump_json(in);
    // Directories too: their own modes and times, the copied one's included, and an empty one kept.
    const auto dirs = run(rt, "cd " + q(dest) + " && stat -c '%n %a %Y' tree tree/private tree/private/empty tree/sub");
    EXPECT_EQ(content(dirs), "tree 750 1300000000\ntree/private 700 1300000000\ntree/private/empty 755 1300000000\n"
                             "tree/sub 755 1300000000") << actionhost::common::dump_json(dirs);

    // Out of the sandbox: modes, times, an inside link as a link; /etc/shadow's link as text only.
    const auto made = run(rt, "mkdir -p /tmp/out && cd /tmp/out && printf 'echo back\\n' > run.sh && chmod 750 run.sh && "
                              "ln -sf run.sh alias && ln -sf /etc/shadow shadow && touch -d @1400000000 run.sh && "
                              "touch -h -d @1400000000 alias && mkdir -p secret/none && chmod 700 secret && "
                              "touch -d @1200000000 secret/none secret && chmod 710 /tmp/out && touch -d @1100000000 /tmp/out");
    ASSERT_EQ(exit_code(made), 0) << actionhost::common::dump_json(made);
    TempDir back("ahsvc-attr-back");
    const std::string raw = copy_from(rt.wire(), "/tmp/out");
    write_file(back / "raw.zip", raw);
    auto py = actionhost::testing::run_process(
        {"/usr/bin/python3", "-c",
         "import zipfile,sys,stat\nz=zipfile.ZipFile(sys.argv[1])\nfor i in sorted(z.infolist(),key=lambda i:i.filename): "
         "print(i.filename, stat.S_ISLNK(i.external_attr>>16), z.read(i).decode().strip())",
         back / "raw.zip"}, 30);
    EXPECT_EQ(py.output, "alias True run.sh\nrun.sh False echo back\nsecret/ False \nsecret/none/ False \nshadow True /etc/shadow\n");
    skipped.clear();
    copy_from_into(rt.wire(), "/tmp/out", back.path(), options);
    struct stat st{};
    ASSERT_EQ(::stat((back / "out/run.sh").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0750u);
    EXPECT_EQ(st.st_mtime, 1400000000);
    EXPECT_EQ(fs::read_symlink(back / "out/alias").string(), "run.sh");
    ASSERT_EQ(::lstat((back / "out/alias").c_str(), &st), 0);
    EXPECT_EQ(st.st_mtime, 1400000000);
    EXPECT_FALSE(fs::exists(fs::symlink_status(back / "out/shadow")));
    for (const auto &[dir, mode, time] : {std::tuple{"out", 0710u, 1100000000}, {"out/secret", 0700u, 1200000000}, {"out/secret/none", 0755u, 1200000000}}) {
        ASSERT_EQ(::stat((back / dir).c_str(), &st), 0) << dir;
        EXPECT_EQ(st.st_mode & 07777, mode) << dir;
        EXPECT_EQ(st.st_mtime, time) << dir;
    }
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_NE(skipped[0].find("/etc/shadow"), std::string::npos) << skipped[0];
    // A link made first that leads out only through a link made after it (names sort `a` before
    // `d1/d2/b`): each is inside by its text and when it is made; all are checked again at the end.
    write_file(back / "chain-secret", "machine secret\n");
    const auto chain = run(rt, "mkdir -p /tmp/chain/d1/d2 && cd /tmp/chain && ln -s ../.. d1/d2/b && "
                               "ln -s d1/d2/b/../../chain-secret a && ln -s d1/d2/b/../.. a2 && ln -s d1 inside");
    ASSERT_EQ(exit_code(chain), 0) << actionhost::common::dump_json(chain);
    skipped.clear();
    TempDir chain_back("ahsvc-attr-chain");
    write_file(chain_back / "chain-secret", "machine secret\n");
    const auto written = copy_from_into(rt.wire(), "/tmp/chain", chain_back.path(), options);
    for (const char *name : {"chain/a", "chain/a2"}) {
        EXPECT_FALSE(fs::exists(fs::symlink_status(chain_back / name))) << name << " leads out of the copy and was kept";
        EXPECT_EQ(std::count(written.begin(), written.end(), chain_back / name), 0) << name;
    }
    EXPECT_EQ(fs::read_symlink(chain_back / "chain/inside").string(), "d1");
    EXPECT_EQ(skipped.size(), 2u);
    // A single file out keeps its mode and time too.
    copy_from_into(rt.wire(), dest + "/tree/x.sh", back / "one");
    ASSERT_EQ(::stat((back / "one/x.sh").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0755u);
    EXPECT_EQ(st.st_mtime, 1500000000);
}

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

// Runs `ahctl <args>` with a private HOME and state dir, the process environment plus `env`.
Result ahctl(const TempDir &dir, const std::string &args, const std::string &env = "") {
    std::string cmd = env + " HOME=" + q(dir.path()) + " " + q(actionhost::testing::build_path("bin/ahctl")) + " --state-dir " +
                      q(dir / "state") + " -q " + args + " > " + q(dir / "out") + " 2> " + q(dir / "err") + " < /dev/null";
    auto r = actionhost::testing::run_process({"/bin/bash", "-c", cmd}, 90);
    return {r.exit_code, read_file(dir / "out"), read_file(dir / "err")};
}

}  // namespace

TEST(AhctlServices, EnvCpGitMicroagentsOnAKeptRuntime) {
    TempDir dir("ahsvc-ahctl");
    TempDir ws("ahsvc-ahctl-ws");
    sh("set -e; git init -q -b main " + q(dir / "src") + "; cd " + q(dir / "src") +
       "; mkdir -p .openhands/microagents; printf -- '---\\nname: rules\\n---\\nx\\n' > .openhands/microagents/rules.md;"
       " printf 'a\\n' > a.txt; git add -A; git -c user.name=t -c user.email=t@e commit -qm init; git clone -q --bare . " + q(dir / "up.git"));
    // --repo clones at start, --env sets a variable, --keep leaves the runtime for the next commands.
    Result started = ahctl(dir, "-r local -w " + q(ws.path()) + " --keep --repo " + q("file://" + dir.path() + "/up.git@main") +
                                    " --env 'GREETING=hi \"there\" $USER' start");
    ASSERT_EQ(started.code, 0) << started.err;
    std::string sid = started.out.substr(0, started.out.find('\n'));
    const std::string s = "-s " + sid + " ";

    Result set = ahctl(dir, s + "env set " + bash_quote("multi=line one\nline two 'q' `x`"));
    EXPECT_EQ(set.code, 0) << set.err;
    Result printed = ahctl(dir, s + "--env LATER=on-reattach run -- 'printenv GREETING; printenv MULTI; printenv LATER; git -C up branch --show-current'");
    EXPECT_EQ(printed.out, "hi \"there\" $USER\nline one\nline two 'q' `x`\non-reattach\nmain\n") << printed.err;
    EXPECT_EQ(ahctl(dir, s + "env set 'bad-name=x'").code, 2);

    // cp both ways; the sandbox side is sandbox:PATH (relative = in the workspace).
    write_file(dir / "local/notes.txt", "notes");
    EXPECT_EQ(ahctl(dir, s + "cp " + q(dir / "local") + " sandbox:up/docs").code, 0);
    EXPECT_EQ(read_file(ws / "up/docs/local/notes.txt"), "notes");
    Result out = ahctl(dir, s + "cp sandbox:up/docs " + q(dir / "fetched"));
    EXPECT_EQ(out.code, 0) << out.err;
    EXPECT_EQ(read_file(dir / "fetched/docs/local/notes.txt"), "notes");
    EXPECT_EQ(ahctl(dir, s + "cp sandbox:up/a.txt " + q(dir / "fetched")).code, 0);
    EXPECT_EQ(read_file(dir / "fetched/a.txt"), "a\n");
    EXPECT_EQ(ahctl(dir, s + "cp " + q(dir / "local") + " " + q(dir / "x")).code, 2);  // no sandbox side

    ahctl(dir, s + "run -- 'printf \"b\\n\" >> up/a.txt'");
    Result changes = ahctl(dir, s + "git changes --cwd up");
    EXPECT_EQ(changes.code, 0) << changes.err;
    EXPECT_EQ(changes.out, "M\ta.txt\nA\tdocs/local/notes.txt\n");  // sorted by path
    Result diff = ahctl(dir, s + "git diff up/a.txt");
    EXPECT_EQ(json::parse(diff.out), json({{"original", "a"}, {"modified", "a\nb"}})) << diff.err;
    Result agents = ahctl(dir, s + "microagents --root up");
    EXPECT_EQ(agents.out, "rules\trules.md\n") << agents.err;

    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

TEST(AhctlServices, CpHelpNamesTheSandboxNotation) {
    TempDir dir("ahsvc-help");
    Result help = ahctl(dir, "cp --help");
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find("sandbox:PATH"), std::string::npos) << help.out;
}
