// Hostile images against the sandbox runtime's image store (docs/security.md, "Images"): every layer is
// a tar someone else made, every manifest someone else's claim. Each image here is a busybox root with a
// crafted layer on top (Python's tarfile writes what no well-behaved tool would), or a layout whose
// blobs or descriptors were tampered with after it was written. Each must be refused with a clear error
// or neutralised, with nothing written outside the store and nothing in the store another user of the
// machine could use. Runs as root and, as AsUser.*, as nobody.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/images.hpp>

#include "integration/runtimes/runtime_harness.hpp"
#include "support/oci_layout.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

using namespace runtimes_test;
namespace at = actionhost::testing;
using actionhost::client::Config;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool running_as_root() { return geteuid() == 0; }

std::string tag() {
    std::random_device rd;
    return std::to_string(rd() % 1000000000);
}

// A tar written by Python's tarfile from `entries` (Python statements calling add(...)).
std::string python_tar(const std::string &path, const std::string &entries) {
    const std::string code =
        "import tarfile, io\n"
        "t = tarfile.open('" + path + "', 'w', format=tarfile.GNU_FORMAT)\n"
        "def add(name, data=b'', kind=tarfile.REGTYPE, link='', mode=0o644, uid=0, gid=0, major=0, minor=0):\n"
        "    ti = tarfile.TarInfo(name); ti.type = kind; ti.linkname = link; ti.mode = mode; ti.uid = uid; ti.gid = gid\n"
        "    ti.devmajor = major; ti.devminor = minor; ti.size = len(data) if kind == tarfile.REGTYPE else 0\n"
        "    t.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None)\n" +
        entries + "t.close()\n";
    auto r = at::run_process({"/usr/bin/python3", "-c", code}, 120);
    return r.exit_code == 0 ? "" : "python tarfile failed: " + r.output;
}

// A busybox root as the bottom layer and `hostile` on top, as the layout `dir` tagged "v1".
std::string hostile_image(const at::TempDir &work, const std::string &dir, const std::string &hostile_tar, bool gzip = true) {
    at::TempDir root("ahsec-root");
    if (auto why = at::make_busybox_rootfs(root.path()); !why.empty()) return why;
    const std::string base = work / "base.tar";
    if (auto why = at::tar_directory(root.path(), base); !why.empty()) return why;
    return at::write_oci_layout(dir, "v1", {{base, true}, {hostile_tar, gzip}});
}

// Starts a sandbox of the image; returns "" or the error the start failed with.
std::string start_error(const std::string &image, const std::function<void(Config &)> &more = {}) {
    try {
        auto s = start_runtime("sandbox", [&](Config &c) {
            c.set("sandbox.base_container_image", image);
            if (more) more(c);
        });
        return "";
    } catch (const std::exception &e) {
        return e.what();
    }
}

std::unique_ptr<StartedRuntime> start_image(const std::string &image, const std::string &state_dir = "") {
    return start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.base_container_image", image);
        if (!state_dir.empty()) c.set("core.state_dir", state_dir);
    });
}

}  // namespace

// Names that leave the layer: "../" refuses the image; an absolute name is the image's own path, inside
// the layer. Nothing lands on the machine.
TEST(ImageStore, NamesThatLeaveTheLayerNeverReachTheMachine) {
    at::TempDir work("ahsec-img");
    const std::string t = tag();
    const std::string escaped = "/tmp/ahsec-escaped-" + t, absolute = "/opt/ahsec-absolute-" + t;
    ASSERT_EQ(python_tar(work / "dotdot.tar", "add('../../../../../../../../tmp/ahsec-escaped-" + t + "', b'out')\n"), "");
    ASSERT_EQ(hostile_image(work, work / "dotdot", work / "dotdot.tar"), "");
    const std::string why = start_error("oci:" + (work / "dotdot") + ":v1");
    EXPECT_NE(why.find("leaves the layer"), std::string::npos) << why;
    EXPECT_FALSE(fs::exists(escaped));

    ASSERT_EQ(python_tar(work / "abs.tar", "add('" + absolute + "', b'inside')\n"), "");
    ASSERT_EQ(hostile_image(work, work / "abs", work / "abs.tar"), "");
    auto s = start_image("oci:" + (work / "abs") + ":v1");
    EXPECT_EQ(run(*s->runtime, "cat " + absolute).value("content", ""), "inside");
    EXPECT_FALSE(fs::exists(absolute)) << "an absolute name of a layer was written on the machine";
}

// A link the layer makes, then an entry through it: before the store walked it, the entry would land
// where the link points (a directory of the machine). Refused; the target untouched. A hard link to a
// file that is not in the layer (the machine's /etc/passwd by name) is refused too.
TEST(ImageStore, LinksOutOfTheLayerAreNeverFollowed) {
    at::TempDir work("ahsec-img"), victim("ahsec-victim");
    fs::permissions(victim.path(), fs::perms::all);
    ASSERT_EQ(python_tar(work / "link.tar", "add('out', kind=tarfile.SYMTYPE, link='" + victim.path() + "')\n"
                                              "add('out/planted', b'through the link')\n"), "");
    ASSERT_EQ(hostile_image(work, work / "link", work / "link.tar"), "");
    std::string why = start_error("oci:" + (work / "link") + ":v1");
    EXPECT_NE(why.find("link or not a directory"), std::string::npos) << why;
    EXPECT_TRUE(fs::is_empty(victim.path())) << "an entry was written through the layer's link";

    ASSERT_EQ(python_tar(work / "hard.tar", "add('passwd-copy', kind=tarfile.LNKTYPE, link='/etc/passwd')\n"), "");
    ASSERT_EQ(hostile_image(work, work / "hard", work / "hard.tar"), "");
    why = start_error("oci:" + (work / "hard") + ":v1");
    EXPECT_NE(why.find("not a file of this layer"), std::string::npos) << why;
}

// A whiteout of /openhands (where the host bundle goes) and device nodes: the host comes up all the same
// (its bundle is mounted over whatever the image says), the devices are skipped.
TEST(ImageStore, AWhiteoutOfTheBundleAndDeviceNodesAreNeutralised) {
    at::TempDir work("ahsec-img");
    ASSERT_EQ(python_tar(work / "odd.tar", "add('.wh.openhands')\n"
                                             "add('dev/mem', kind=tarfile.CHRTYPE, major=1, minor=1, mode=0o666)\n"
                                             "add('disk', kind=tarfile.BLKTYPE, major=8, minor=0, mode=0o666)\n"), "");
    ASSERT_EQ(hostile_image(work, work / "odd", work / "odd.tar"), "");
    auto s = start_image("oci:" + (work / "odd") + ":v1");
    EXPECT_EQ(run(*s->runtime, "echo host up").value("content", ""), "host up");
    EXPECT_EQ(exit_code(run(*s->runtime, "test -x /openhands/actionhost/bin/actionhost")), 0);
    EXPECT_NE(exit_code(run(*s->runtime, "test -e /disk")), 0);
    // No device node anywhere in the store.
    for (const auto &e : fs::recursive_directory_iterator(s->state->path() + "/images", fs::directory_options::skip_permission_denied)) {
        struct stat st{};
        ::lstat(e.path().c_str(), &st);
        EXPECT_FALSE(S_ISBLK(st.st_mode) || (S_ISCHR(st.st_mode) && st.st_rdev != 0)) << e.path();
    }
}

// A set-user-ID root file: kept for the inside for a root caller (owned by the sandbox's id range, in a
// store no other user may enter), dropped for an unprivileged caller (it would be the caller's).
TEST(ImageStore, SetuidFilesAreNobodysOnTheMachine) {
    at::TempDir work("ahsec-img");
    ASSERT_EQ(python_tar(work / "suid.tar", "add('usr/local/bin/rootshell', open('/bin/busybox','rb').read(), mode=0o4755, uid=0)\n"), "");
    ASSERT_EQ(hostile_image(work, work / "suid", work / "suid.tar"), "");
    auto s = start_image("oci:" + (work / "suid") + ":v1");
    EXPECT_EQ(run(*s->runtime, "echo up").value("content", ""), "up");
    const std::string store = s->state->path() + "/images";
    struct stat root_dir{};
    ASSERT_EQ(::stat(store.c_str(), &root_dir), 0);
    EXPECT_EQ(root_dir.st_mode & 077, 0u) << "the store is open to other users";
    bool seen = false;
    for (const auto &e : fs::recursive_directory_iterator(store, fs::directory_options::skip_permission_denied)) {
        if (e.path().filename() != "rootshell") continue;
        seen = true;
        struct stat st{};
        ASSERT_EQ(::lstat(e.path().c_str(), &st), 0);
        EXPECT_NE(st.st_uid, 0u) << "a file of the store is root's";
        if (running_as_root()) {
            EXPECT_NE(st.st_mode & S_ISUID, 0u) << "the image's setuid bit was not kept for the inside";
            EXPECT_GE(st.st_uid, 65536u) << "owned by a machine id outside the sandbox's range";
            // nobody cannot even reach it.
            const pid_t child = fork();
            if (child == 0) {
                if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(3);
                execl(e.path().c_str(), "rootshell", "id", static_cast<char *>(nullptr));
                _exit(errno == EACCES ? 0 : 1);
            }
            int status = 0;
            waitpid(child, &status, 0);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "nobody ran a setuid file of the store";
        } else {
            EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << "a setuid file of the caller's was left in the store";
        }
    }
    EXPECT_TRUE(seen);
}

// A 10 GiB sparse file: stored sparse (its size, not its bytes); a decompression bomb (96 MiB of zeros
// in ~100 KB) against a 32 MiB limit: refused.
TEST(ImageStore, SparseFilesStaySparseAndBombsAreRefused) {
    at::TempDir work("ahsec-img");
    at::TempDir sparse_root("ahsec-sparse");
    ASSERT_EQ(at::run_process({"truncate", "-s", "10G", sparse_root / "big"}, 30).exit_code, 0);
    ASSERT_EQ(at::run_process({"tar", "--sparse", "-C", sparse_root.path(), "-cf", work / "sparse.tar", "big"}, 120).exit_code, 0);
    ASSERT_EQ(hostile_image(work, work / "sparse", work / "sparse.tar"), "");
    auto s = start_image("oci:" + (work / "sparse") + ":v1");
    EXPECT_EQ(run(*s->runtime, "stat -c %s /big").value("content", ""), "10737418240");
    for (const auto &e : fs::recursive_directory_iterator(s->state->path() + "/images", fs::directory_options::skip_permission_denied)) {
        if (e.path().filename() != "big") continue;
        struct stat st{};
        ::lstat(e.path().c_str(), &st);
        EXPECT_LT(st.st_blocks * 512, 16ll << 20) << "the sparse file took its full size in the store";
    }

    ASSERT_EQ(python_tar(work / "bomb.tar", "add('zeros', bytes(96 << 20))\n"), "");
    ASSERT_EQ(hostile_image(work, work / "bomb", work / "bomb.tar"), "");
    ASSERT_LT(fs::file_size(work / "bomb/index.json"), 4096u);
    const std::string why = start_error("oci:" + (work / "bomb") + ":v1", [](Config &c) { c.set("sandbox.image_max_size_mb", 32); });
    EXPECT_NE(why.find("unpacks to more than"), std::string::npos) << why;
}

// A blob whose content is not what its digest says, and a manifest that lies about a blob's size: the
// import refuses both and keeps nothing of them.
TEST(ImageStore, TamperedBlobsAndLyingSizesAreRefused) {
    at::TempDir work("ahsec-img");
    ASSERT_EQ(python_tar(work / "plain.tar", "add('hello', b'hi')\n"), "");
    ASSERT_EQ(hostile_image(work, work / "tampered", work / "plain.tar", false), "");
    // The top layer's blob, rewritten after the layout named it.
    const json index = json::parse(std::ifstream(work / "tampered/index.json"));
    const std::string manifest_hex = index["manifests"][0]["digest"].get<std::string>().substr(7);
    json manifest = json::parse(std::ifstream(work / ("tampered/blobs/sha256/" + manifest_hex)));
    const std::string layer_hex = manifest["layers"][1]["digest"].get<std::string>().substr(7);
    {
        std::fstream blob(work / ("tampered/blobs/sha256/" + layer_hex), std::ios::in | std::ios::out | std::ios::binary);
        blob.seekp(0);
        blob << 'X';
    }
    std::string why = start_error("oci:" + (work / "tampered") + ":v1");
    EXPECT_NE(why.find("has the digest"), std::string::npos) << why;

    // A descriptor one byte short of its blob: a new manifest saying so, and an index naming it.
    ASSERT_EQ(hostile_image(work, work / "lying", work / "plain.tar", false), "");
    const json lying_index = json::parse(std::ifstream(work / "lying/index.json"));
    json lying = json::parse(std::ifstream(work / ("lying/blobs/sha256/" + lying_index["manifests"][0]["digest"].get<std::string>().substr(7))));
    lying["layers"][1]["size"] = lying["layers"][1]["size"].get<int64_t>() - 1;
    std::ofstream(work / "lying-manifest.json") << lying.dump();
    const std::string lying_hex = at::sha256_of_file(work / "lying-manifest.json");
    fs::copy_file(work / "lying-manifest.json", work / ("lying/blobs/sha256/" + lying_hex));
    json new_index = lying_index;
    new_index["manifests"][0]["digest"] = "sha256:" + lying_hex;
    new_index["manifests"][0]["size"] = fs::file_size(work / "lying-manifest.json");
    std::ofstream(work / "lying/index.json") << new_index.dump();
    why = start_error("oci:" + (work / "lying") + ":v1");
    EXPECT_NE(why.find("longer than"), std::string::npos) << why;
}

// A snapshot reads what a hostile sandbox wrote into its own layer (docs/security.md, "Images"). Links
// out of the sandbox stay links, never followed; a sparse giant stays sparse; a layer past
// sandbox.image_max_size_mb and a tree nested past reason are refused, leaving nothing in the store; after
// each refusal the sandbox runs on, thawed. As nobody there is no freezer: refused, saying why.
TEST(ImageStore, SnapshotsOfAHostileSandboxAreHarmless) {
    at::TempDir work("ahsec-img");
    ASSERT_EQ(python_tar(work / "plain.tar", "add('hello', b'hi')\n"), "");
    ASSERT_EQ(hostile_image(work, work / "base", work / "plain.tar"), "");
    at::TempDir state("ahsec-state");
    auto s = start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.base_container_image", "oci:" + (work / "base") + ":v1");
        c.set("core.state_dir", state.path());
        c.set("sandbox.image_max_size_mb", 64);
    });
    auto refused = [&](const std::string &name) -> std::string {
        try {
            s->runtime->snapshot(name);
            return "";
        } catch (const actionhost::client::RuntimeError &e) {
            return e.what();
        }
    };
    if (!running_as_root()) {
        const std::string why = refused("tests-unfrozen");
        EXPECT_NE(why.find("freezer"), std::string::npos) << why;
        EXPECT_EQ(run(*s->runtime, "echo runs").value("content", ""), "runs");
        return;
    }
    EXPECT_NE(refused("").find("not an image name"), std::string::npos);
    ASSERT_EQ(exit_code(run(*s->runtime, "mkdir -p /opt && ln -s /etc/shadow /opt/shadow && ln -s / /opt/root && "
                                         "truncate -s 6G /opt/sparse && printf x | dd of=/opt/sparse bs=1 seek=1000 conv=notrunc 2>/dev/null")),
              0);
    struct stat shadow_before{};
    ::stat("/etc/shadow", &shadow_before);
    EXPECT_EQ(refused("tests-hostile"), "");
    struct stat shadow_after{};
    ::stat("/etc/shadow", &shadow_after);
    EXPECT_EQ(shadow_before.st_mtime, shadow_after.st_mtime);
    uint64_t stored = 0;  // what the store takes on disk, holes not counted
    for (const auto &e : fs::recursive_directory_iterator(state / "images")) {
        struct stat st{};
        if (::lstat(e.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) stored += 512ull * static_cast<uint64_t>(st.st_blocks);
    }
    EXPECT_LT(stored, 64ull << 20) << "the 6 GB sparse file took its size in the store";
    {
        auto fork = start_runtime("sandbox", [&](Config &c) {
            c.set("sandbox.base_container_image", "tests-hostile");
            c.set("core.state_dir", state.path());
        });
        EXPECT_EQ(run(*fork->runtime, "readlink /opt/shadow; readlink /opt/root").value("content", ""), "/etc/shadow\n/");
        EXPECT_EQ(run(*fork->runtime, "stat -c %s /opt/sparse && dd if=/opt/sparse bs=1 skip=1000 count=1 2>/dev/null").value("content", ""),
                  "6442450944\nx");
    }

    // Past the limit: refused, the half-written blob gone, the sandbox thawed.
    ASSERT_EQ(exit_code(run(*s->runtime, "head -c 70000000 /dev/zero > /opt/zeros")), 0);
    std::string why = refused("tests-too-big");
    EXPECT_NE(why.find("image_max_size_mb"), std::string::npos) << why;
    EXPECT_TRUE(fs::is_empty(state / "images/blobs/tmp")) << "a refused snapshot left its blob";
    EXPECT_EQ(run(*s->runtime, "rm /opt/zeros && echo thawed").value("content", ""), "thawed");

    // Nested deeper than any tree needs: refused before it could exhaust the client's stack.
    ASSERT_EQ(exit_code(run(*s->runtime, "d=/opt/deep; i=0; while [ $i -lt 600 ]; do d=$d/a; i=$((i+1)); done; mkdir -p $d")), 0);
    why = refused("tests-deep");
    EXPECT_NE(why.find("deeper than"), std::string::npos) << why;
    EXPECT_EQ(run(*s->runtime, "echo thawed again").value("content", ""), "thawed again");
    bool listed = false;
    for (const auto &i : actionhost::client::list_images([&] {
             Config c;
             c.set("core.state_dir", state.path());
             return c;
         }()))
        listed = listed || i.name == "tests-too-big" || i.name == "tests-deep";
    EXPECT_FALSE(listed) << "a refused snapshot was named in the store";
}

// An image's Env is the image author's: before, it became the environment of ah-sandbox-init, which
// runs on the machine as the caller before any namespace — an LD_PRELOAD naming a library of the image's
// own (unpacked at a path anyone can predict) ran the image's code as the machine's root. Now the
// image's variables reach only the host, inside, and those that steer the loader or libc are left out,
// said so; the others (PATH, the image's own) still apply.
TEST(ImageStore, AnImagesEnvironmentNeverReachesTheMachine) {
    at::TempDir work("ahsec-img");
    const std::string marker = "/tmp/ahsec-preloaded-" + tag();
    fs::create_directories(work / "lib/evil");
    std::ofstream(work / "evil.c") << "#include <fcntl.h>\n#include <unistd.h>\n"
                                      "__attribute__((constructor)) static void run(void) {\n"
                                      "  int fd = open(\"" + marker + "\", O_CREAT | O_WRONLY | O_APPEND, 0644);\n"
                                      "  if (fd >= 0) { write(fd, \"ran\\n\", 4); close(fd); } }\n";
    auto cc = at::run_process({"cc", "-shared", "-fPIC", "-o", work / "lib/evil/evil.so", work / "evil.c"}, 120);
    if (cc.exit_code != 0) GTEST_SKIP() << "no C compiler: " << cc.output;
    ASSERT_EQ(at::tar_directory(work / "lib", work / "evil.tar"), "");
    at::TempDir root("ahsec-root");
    ASSERT_EQ(at::make_busybox_rootfs(root.path()), "");
    ASSERT_EQ(at::tar_directory(root.path(), work / "base.tar"), "");
    // The library is at /evil/evil.so inside; on the machine it is in the store's unpacked layer, whose
    // directory is the layer's digest — the same for every store: glob it the way an attacker would name it.
    const std::string state = work / "state";
    const std::string layer_hex = at::sha256_of_file(work / "evil.tar");
    const std::string owners = running_as_root() ? "range-1879048192-1879048192" : "caller";
    const std::string on_machine = state + "/images/layers/" + owners + "/" + layer_hex + "/evil/evil.so";
    ASSERT_EQ(at::write_oci_layout(work / "img", "v1", {{work / "base.tar", true}, {work / "evil.tar", false}},
                                   {"PATH=/usr/local/bin:/usr/bin:/bin:/sbin:/image-bin", "LD_PRELOAD=" + on_machine + ":/evil/evil.so",
                                    "GCONV_PATH=/evil", "AH_IMAGE_VAR=from-the-image", "SESSION_API_KEY=image-chosen"}),
              "");
    std::vector<std::string> warnings;
    auto s = start_runtime(
        "sandbox",
        [&](Config &c) {
            c.set("sandbox.base_container_image", "oci:" + (work / "img") + ":v1");
            c.set("core.state_dir", state);
        },
        [&](actionhost::client::RuntimeOptions &o) {
            o.on_log = [&](int level, const std::string &msg) {
                if (level >= 2) warnings.push_back(msg);
            };
        });
    ASSERT_TRUE(fs::exists(on_machine)) << "the test's library is not where an attacker would name it";
    EXPECT_FALSE(fs::exists(marker)) << "the image's library ran on the machine";
    EXPECT_EQ(run(*s->runtime, "echo $AH_IMAGE_VAR; echo $PATH").value("content", ""), "from-the-image\n/usr/local/bin:/usr/bin:/bin:/sbin:/image-bin");
    EXPECT_EQ(run(*s->runtime, "cat " + marker + " 2>/dev/null; echo \"[$LD_PRELOAD][$GCONV_PATH]\"").value("content", ""), "[][]")
        << "the loader variables reached the sandbox";
    bool told = false;
    for (const auto &w : warnings) told = told || (w.find("LD_PRELOAD") != std::string::npos && w.find("SESSION_API_KEY") != std::string::npos);
    EXPECT_TRUE(told) << "nothing said the image's LD_PRELOAD was left out";
    ::unlink(marker.c_str());
}

// An image whose /tmp, /run, /etc, /proc, /var and /openhands are absolute links to directories of the
// machine: the root is assembled by path while the process's root is still the machine's, so before,
// those links led mkdir and chmod out of the image (a red-team run made other users' directories mode
// 1777). Each is now replaced by a directory in the sandbox's own layer, said so; the machine's
// directories stay as they were, and the sandbox works.
TEST(ImageStore, AnImagesLinksNeverLeadTheRootsAssemblyOut) {
    at::TempDir work("ahsec-img");
    std::vector<std::string> victims;
    std::string entries;
    for (const char *name : {"tmp", "run", "etc", "proc", "var", "openhands"}) {
        const std::string victim = work / (std::string("victim-") + name);
        fs::create_directories(victim);
        ::chmod(victim.c_str(), 0700);
        victims.push_back(victim);
        entries += std::string("add('") + name + "', kind=tarfile.SYMTYPE, link='" + victim + "')\n";
    }
    ASSERT_EQ(python_tar(work / "links.tar", entries), "");
    ASSERT_EQ(hostile_image(work, work / "links", work / "links.tar"), "");
    std::vector<std::string> warnings;
    std::unique_ptr<StartedRuntime> s;
    std::string failed;
    try {
        s = start_runtime(
            "sandbox", [&](Config &c) { c.set("sandbox.base_container_image", "oci:" + (work / "links") + ":v1"); },
            [&](actionhost::client::RuntimeOptions &o) {
                o.on_log = [&](int level, const std::string &msg) {
                    if (level >= 2) warnings.push_back(msg);
                };
            });
    } catch (const std::exception &e) {
        failed = e.what();
    }
    // Whether or not the start got through, the machine's directories are as they were.
    for (const auto &v : victims) {
        struct stat st{};
        ASSERT_EQ(::lstat(v.c_str(), &st), 0) << v;
        EXPECT_EQ(st.st_mode & 07777, 0700u) << v << " was changed through the image's link";
        EXPECT_TRUE(fs::is_empty(v)) << v << " got entries through the image's link";
    }
    ASSERT_EQ(failed, "");
    bool told = false;
    for (const auto &w : warnings) told = told || w.find("the image's /tmp was a link to " + victims[0]) != std::string::npos;
    EXPECT_TRUE(told) << "nothing said the image's /tmp link was replaced";
    EXPECT_EQ(run(*s->runtime, "test -d /tmp && ! test -L /tmp && echo > /tmp/x && cat /etc/hostname").value("content", ""), "sandbox");
}
