// ahctl plugin push/install/ls/rm/search against a real docker-registry on the loopback: fixture plugins
// of tests/abi pushed (signed or not), installed on a fresh prefix, loaded and called through a real
// host; version ranges resolved from the registry's tags; and every refusal (a tampered blob, a wrong
// ABI, a wrong platform, a missing signature, one by another key, an unsatisfiable range) leaving the
// plugin directory exactly as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "support/host_process.hpp"
#include "support/local_registry.hpp"
#include "support/oci_layout.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

using namespace actionhost::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = AH_FIXTURE_DIR;

class PluginDistribution : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        registry_ = new LocalRegistry();
        keys_ = new TempDir("ahkeys");
        for (const char *who : {"author", "stranger"}) {
            const std::string key = (*keys_) / (std::string(who) + ".pem"), pub = (*keys_) / (std::string(who) + ".pub.pem");
            ASSERT_EQ(run_process({"openssl", "genpkey", "-algorithm", "ed25519", "-out", key}).exit_code, 0);
            ASSERT_EQ(run_process({"openssl", "pkey", "-in", key, "-pubout", "-out", pub}).exit_code, 0);
        }
    }
    static void TearDownTestSuite() {
        delete registry_;
        delete keys_;
        registry_ = nullptr;
        keys_ = nullptr;
    }
    void SetUp() override {
        if (!registry_->started()) GTEST_SKIP() << registry_->why_not();
    }

    static std::string key(const std::string &name) { return (*keys_) / name; }
    std::string reg() const { return registry_->address(); }

    // ahctl with the test's own HOME (no docker config of the machine's user), bounded in time.
    ProcessResult ahctl(std::vector<std::string> args) {
        args.insert(args.begin(), build_path("bin/ahctl"));
        return run_process(args, 120, {"HOME=" + work_ / "home", "ACTIONHOST_STATE_DIR=" + work_ / "state"});
    }

    // A copy of the fixture plugin `fixture` in a folder of this test, its manifest changed by `edit`.
    std::string plugin_copy(const std::string &fixture, const std::function<void(json &)> &edit = {}) {
        const std::string dir = work_ / ("src-" + std::to_string(++copies_) + "/" + fixture);
        fs::create_directories(dir);
        fs::copy(kFixtures + "/" + fixture, dir, fs::copy_options::recursive);
        if (edit) {
            json m = json::parse(read_file(dir + "/manifest.json"));
            edit(m);
            write_file(dir + "/manifest.json", m.dump(2));
        }
        return dir;
    }

    // Pushes `dir` to <registry>/<repo>; returns the digest ahctl printed (its --json).
    std::string push(const std::string &dir, const std::string &repo, const std::vector<std::string> &extra = {}) {
        std::vector<std::string> args = {"plugin", "push", dir, reg() + "/" + repo, "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const ProcessResult r = ahctl(args);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        const auto j = json::parse(r.output.substr(r.output.find('{')), nullptr, false);
        return j.is_object() ? j.value("digest", "") : "";
    }

    // Every path below `dir` with its size: what "nothing written" compares.
    static std::map<std::string, uintmax_t> snapshot(const std::string &dir) {
        std::map<std::string, uintmax_t> out;
        std::error_code ec;
        if (!fs::exists(dir, ec)) return out;
        for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec))
            out[it->path().string()] = it->is_regular_file() ? it->file_size() : 0;
        return out;
    }

    // Installs `reference` into `dir` expecting a refusal naming `why`; the directory must not change.
    void expect_refused(const std::vector<std::string> &install_args, const std::string &dir, const std::string &why) {
        const auto before = snapshot(dir);
        std::vector<std::string> args = {"plugin", "install"};
        args.insert(args.end(), install_args.begin(), install_args.end());
        args.insert(args.end(), {"--dir", dir});
        const ProcessResult r = ahctl(args);
        EXPECT_EQ(r.exit_code, 4) << r.output;
        EXPECT_NE(r.output.find(why), std::string::npos) << "wanted: " << why << "\ngot: " << r.output;
        EXPECT_NE(r.output.find("nothing installed"), std::string::npos) << r.output;
        EXPECT_EQ(snapshot(dir), before) << "the plugin directory changed after: " << r.output;
    }

    static LocalRegistry *registry_;
    static TempDir *keys_;
    TempDir work_{"ahplugins"};
    int copies_ = 0;
};

LocalRegistry *PluginDistribution::registry_ = nullptr;
TempDir *PluginDistribution::keys_ = nullptr;

TEST_F(PluginDistribution, SignedPushInstallOnAFreshPrefixThenTheHostLoadsAndCallsIt) {
    const std::string digest = push(plugin_copy("fx_good"), "signed/fx_good", {"--sign", key("author.pem")});
    ASSERT_EQ(digest.rfind("sha256:", 0), 0u) << digest;

    const std::string prefix = work_ / "prefix", dir = prefix + "/lib/actionhost/plugins";
    const ProcessResult r = ahctl({"plugin", "install", reg() + "/signed/fx_good:1.0.0", "--dir", dir, "--require-signature", key("author.pub.pem")});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("installed fx_good 1.0.0 in " + dir + "/fx_good (signed by sha256:"), std::string::npos) << r.output;
    // Only the plugin: no staging directory left beside it.
    std::vector<std::string> entries;
    for (const auto &e : fs::directory_iterator(dir)) entries.push_back(e.path().filename().string());
    EXPECT_EQ(entries, std::vector<std::string>{"fx_good"});
    EXPECT_TRUE(fs::exists(dir + "/fx_good/libah_fx_good.so"));

    const ProcessResult ls = ahctl({"plugin", "ls", "--dir", dir, "--json"});
    ASSERT_EQ(ls.exit_code, 0) << ls.output;
    const json listed = json::parse(ls.output);
    ASSERT_EQ(listed.size(), 1u) << ls.output;
    EXPECT_EQ(listed[0]["name"], "fx_good");
    EXPECT_EQ(listed[0]["digest"], digest);
    EXPECT_EQ(listed[0]["platform"], "linux/amd64");

    HostProcess host(HostOptions{.args = {"--plugin-dir", dir}});
    const json obs = host.execute({{"action", "fixture_echo"}, {"args", {{"text", "from the registry"}}}});
    EXPECT_EQ(obs["observation"], "fixture") << obs.dump();
    EXPECT_NE(obs["content"].get<std::string>().find("from the registry"), std::string::npos) << obs.dump();
    EXPECT_NE(host.log().find("loaded plugin fx_good 1.0.0 from " + dir + "/fx_good/"), std::string::npos) << host.log();

    const ProcessResult rm = ahctl({"plugin", "rm", "fx_good", "--dir", dir});
    EXPECT_EQ(rm.exit_code, 0) << rm.output;
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(PluginDistribution, SearchShowsTheAnnotations) {
    push(plugin_copy("fx_good"), "searched/fx_good");
    const ProcessResult r = ahctl({"plugin", "search", reg(), "searched", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const json found = json::parse(r.output);
    ASSERT_EQ(found.size(), 1u) << r.output;
    EXPECT_EQ(found[0]["repository"], reg() + "/searched/fx_good");
    EXPECT_EQ(found[0]["tag"], "1.0.0");
    EXPECT_EQ(found[0]["annotations"]["io.actionhost.plugin.name"], "fx_good");
    EXPECT_EQ(found[0]["annotations"]["io.actionhost.plugin.platform"], "linux/amd64");
    EXPECT_EQ(found[0]["annotations"]["io.actionhost.plugin.abi_version"], json::parse(read_file(kFixtures + "/fx_good/manifest.json"))["abi_version"]);
}

// fx_good at 0.9.0, 1.0.0 (the real one), 1.5.0 and 2.0.0; fx_call_error requiring "fx_good": ">=1 <1.5"
// gets 1.0.0 with it, and the host loads both, checking the range itself.
TEST_F(PluginDistribution, RequiredPluginsAreResolvedByRangeFromTheSameFolder) {
    for (const char *v : {"0.9.0", "1.5.0", "2.0.0"}) push(plugin_copy("fx_good", [&](json &m) { m["version"] = v; }), "ranges/fx_good");
    push(plugin_copy("fx_good"), "ranges/fx_good");
    push(plugin_copy("fx_call_error", [](json &m) { m["requires"]["plugins"] = {{"fx_good", ">=1 <1.5"}}; }), "ranges/fx_call_error");

    const std::string dir = work_ / "plugins";
    const ProcessResult r = ahctl({"plugin", "install", reg() + "/ranges/fx_call_error:1.0.0", "--dir", dir});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("installed fx_good 1.0.0"), std::string::npos) << r.output;
    EXPECT_LT(r.output.find("installed fx_good"), r.output.find("installed fx_call_error")) << r.output;

    HostProcess host(HostOptions{.args = {"--plugin-dir", dir}});
    const json obs = host.execute({{"action", "fixture_call_error"}, {"args", json::object()}});
    EXPECT_NE(obs["content"].get<std::string>().find("the call's own reason"), std::string::npos) << obs.dump();
    EXPECT_NE(host.log().find("loaded plugin fx_good 1.0.0"), std::string::npos) << host.log();

    // Installed again with fx_good there already in range: nothing else fetched for it.
    const ProcessResult again = ahctl({"plugin", "install", reg() + "/ranges/fx_call_error:1.0.0", "--dir", dir});
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("fx_good 1.0.0 is installed already"), std::string::npos) << again.output;
    EXPECT_EQ(ahctl({"plugin", "rm", "fx_good", "--dir", dir}).exit_code, 4);  // fx_call_error requires it
}

TEST_F(PluginDistribution, AnUnsatisfiableRangeIsAClearErrorAndNothingIsWritten) {
    push(plugin_copy("fx_good"), "unsat/fx_good");
    push(plugin_copy("fx_call_error", [](json &m) { m["requires"]["plugins"] = {{"fx_good", ">=3"}}; }), "unsat/fx_call_error");
    expect_refused({reg() + "/unsat/fx_call_error:1.0.0"}, work_ / "plugins",
                   "the plugin 'fx_call_error' requires 'fx_good' >=3, but no version of " + reg() + "/unsat/fx_good is in that range (it has 1.0.0)");
}

TEST_F(PluginDistribution, TheHostRefusesADependencyOutsideItsRange) {
    const std::string dir = work_ / "plugins";
    fs::create_directories(dir);
    fs::copy(kFixtures + "/fx_good", dir + "/fx_good", fs::copy_options::recursive);
    const std::string dependent = plugin_copy("fx_call_error", [](json &m) { m["requires"]["plugins"] = {{"fx_good", "^2.1"}}; });
    fs::copy(dependent, dir + "/fx_call_error", fs::copy_options::recursive);
    HostProcess host(HostOptions{.args = {"--plugin-dir", dir}});
    const auto r = host.execute_raw({{"action", "fixture_call_error"}, {"args", json::object()}});
    EXPECT_NE(r.body.find("plugin 'fx_call_error' requires 'fx_good' ^2.1, but the one found is 1.0.0"), std::string::npos) << r.body;
}

TEST_F(PluginDistribution, ATamperedBlobIsRefused) {
    // A description of its own: the registry stores a blob once for every repository, and the other
    // tests' fx_good layer must stay whole.
    const std::string dir = plugin_copy("fx_good", [](json &m) { m["description"] = "to be tampered with"; });
    push(dir, "tampered/fx_good");
    // The layer's blob in the registry's storage, changed in place (same size).
    const ProcessResult m = run_process({"curl", "-sf", "-H", "Accept: application/vnd.oci.image.manifest.v1+json",
                                         "http://" + reg() + "/v2/tampered/fx_good/manifests/1.0.0"});
    ASSERT_EQ(m.exit_code, 0) << m.output;
    const std::string layer = json::parse(m.output)["layers"][0]["digest"];
    const std::string blob = registry_->blob_path(layer);
    std::string bytes = read_file(blob);
    ASSERT_GT(bytes.size(), 100u);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    write_file(blob, bytes);
    expect_refused({reg() + "/tampered/fx_good:1.0.0"}, work_ / "plugins", layer);
}

TEST_F(PluginDistribution, AWrongAbiIsRefused) {
    push(plugin_copy("fx_good", [](json &m) { m["abi_version"] = "99.0.0"; }), "abi/fx_good");
    expect_refused({reg() + "/abi/fx_good:1.0.0"}, work_ / "plugins", "its manifest declares ABI 99.0.0");
}

TEST_F(PluginDistribution, ALibraryForAnotherMachineIsRefused) {
    const std::string dir = plugin_copy("fx_good");
    // e_machine (offset 18, little-endian) set to EM_AARCH64: the same file, built "for arm64".
    std::string elf = read_file(dir + "/libah_fx_good.so");
    elf[18] = static_cast<char>(183);
    elf[19] = 0;
    write_file(dir + "/libah_fx_good.so", elf);
    push(dir, "platform/fx_good");
    expect_refused({reg() + "/platform/fx_good:1.0.0"}, work_ / "plugins", "is built for linux/arm64, this machine is linux/amd64");
}

// An artifact whose annotations and config say linux/amd64 but whose layer holds an arm64 library (a
// layer of another machine's build re-tagged): the ELF header is what counts.
TEST_F(PluginDistribution, APlatformAnnotationThatLiesIsRefused) {
    const std::string arm = plugin_copy("fx_good");
    std::string elf = read_file(arm + "/libah_fx_good.so");
    elf[18] = static_cast<char>(183);
    elf[19] = 0;
    write_file(arm + "/libah_fx_good.so", elf);
    push(arm, "lying/arm");
    push(plugin_copy("fx_good"), "lying/fx_good");
    const std::string base = "http://" + reg() + "/v2/";
    const auto manifest_of = [&](const std::string &repo) {
        const ProcessResult m = run_process({"curl", "-sf", "-H", "Accept: application/vnd.oci.image.manifest.v1+json", base + repo + "/manifests/1.0.0"});
        EXPECT_EQ(m.exit_code, 0) << m.output;
        return json::parse(m.output);
    };
    const json arm_layer = manifest_of("lying/arm")["layers"][0];
    json doc = manifest_of("lying/fx_good");
    // The arm64 layer mounted into the amd64 plugin's repository, and put in its manifest.
    const ProcessResult mount = run_process({"curl", "-sf", "-X", "POST", base + "lying/fx_good/blobs/uploads/?mount=" +
                                                                             arm_layer["digest"].get<std::string>() + "&from=lying/arm"});
    ASSERT_EQ(mount.exit_code, 0) << mount.output;
    doc["layers"][0] = arm_layer;
    ASSERT_EQ(doc["annotations"]["io.actionhost.plugin.platform"], "linux/amd64");
    const std::string file = work_ / "manifest.json";
    write_file(file, doc.dump());
    const ProcessResult put = run_process({"curl", "-sf", "-X", "PUT", "-H", "Content-Type: application/vnd.oci.image.manifest.v1+json",
                                           "--data-binary", "@" + file, base + "lying/fx_good/manifests/2.0.0"});
    ASSERT_EQ(put.exit_code, 0) << put.output;
    expect_refused({reg() + "/lying/fx_good:2.0.0"}, work_ / "plugins",
                   "its library libah_fx_good.so is built for linux/arm64, this machine is linux/amd64 (its platform annotation says linux/amd64)");
}

TEST_F(PluginDistribution, AnUnsignedPluginIsRefusedWhenASignatureIsRequired) {
    push(plugin_copy("fx_good"), "unsigned/fx_good");
    expect_refused({reg() + "/unsigned/fx_good:1.0.0", "--require-signature", key("author.pub.pem")}, work_ / "plugins",
                   "is not signed (no " + reg() + "/unsigned/fx_good:sha256-");
}

TEST_F(PluginDistribution, ASignatureByAnotherKeyIsRefused) {
    push(plugin_copy("fx_good"), "stranger/fx_good", {"--sign", key("stranger.pem")});
    expect_refused({reg() + "/stranger/fx_good:1.0.0", "--require-signature", key("author.pub.pem")}, work_ / "plugins",
                   "verifies with none of the required keys");
}

// ahctl --plugin REF at start: installed into <state dir>/plugins and loaded by the runtime's host at
// start; a refused one (here: unsigned, with --plugin-key) starts nothing.
TEST_F(PluginDistribution, APluginGivenAtStartIsInstalledAndLoaded) {
    push(plugin_copy("fx_good"), "atstart/fx_good");
    const std::string state = work_ / "state";
    const std::string ref = reg() + "/atstart/fx_good:1.0.0";
    const ProcessResult refused = ahctl({"-r", "local", "--state-dir", state, "--plugin", ref, "--plugin-key", key("author.pub.pem"), "start"});
    EXPECT_EQ(refused.exit_code, 4) << refused.output;
    EXPECT_NE(refused.output.find("is not signed"), std::string::npos) << refused.output;
    EXPECT_FALSE(fs::exists(state + "/plugins/fx_good"));

    const ProcessResult started = ahctl({"-r", "local", "--state-dir", state, "--plugin", ref, "-q", "start"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    const std::string sid = started.output.substr(started.output.rfind('\n', started.output.size() - 2) + 1, std::string::npos);
    const std::string id = sid.substr(0, sid.find('\n'));
    EXPECT_TRUE(fs::exists(state + "/plugins/fx_good/manifest.json"));
    const ProcessResult logs = ahctl({"--state-dir", state, "logs", id});
    EXPECT_NE(logs.output.find("loaded plugin fx_good 1.0.0 from " + state + "/plugins/fx_good/"), std::string::npos) << logs.output;
    EXPECT_EQ(ahctl({"--state-dir", state, "stop", id}).exit_code, 0);
}

// Into a sandbox image: `ahctl --image BASE plugin install REF --as NAME` stores BASE plus one layer with
// the plugin in /usr/local/lib/actionhost/plugins; a sandbox started from NAME (the host from the bundle,
// the image's root) loads and answers it. A refused install stores no image.
TEST_F(PluginDistribution, APluginInstalledIntoAnImageIsLoadedBySandboxesOfThatImage) {
    TempDir root("ahplug-root");
    ASSERT_EQ(make_busybox_rootfs(root.path()), "");
    const std::string layout = work_ / "layout";
    ASSERT_EQ(tar_directory(root.path(), layout + ".layer.tar"), "");
    ASSERT_EQ(write_oci_layout(layout, "v1", {{layout + ".layer.tar", true}}), "");
    push(plugin_copy("fx_good"), "inimage/fx_good", {"--sign", key("author.pem")});
    const std::string ref = reg() + "/inimage/fx_good:1.0.0", base = "oci:" + layout + ":v1";
    const auto images = [&] { return ahctl({"images", "--json"}).output; };

    // Refused (signed by another key than the one required): no image, and nothing new in the store.
    const ProcessResult refused = ahctl({"--image", base, "plugin", "install", ref, "--as", "bb-refused", "--require-signature", key("stranger.pub.pem")});
    EXPECT_EQ(refused.exit_code, 4) << refused.output;
    EXPECT_EQ(images().find("bb-refused"), std::string::npos);
    // --as without a base image, or with --dir, is a usage error.
    EXPECT_EQ(ahctl({"plugin", "install", ref, "--as", "x"}).exit_code, 2);
    EXPECT_EQ(ahctl({"--image", base, "plugin", "install", ref, "--as", "x", "--dir", work_ / "d"}).exit_code, 2);

    const ProcessResult r = ahctl({"--image", base, "plugin", "install", ref, "--as", "bb-with-echo", "--require-signature", key("author.pub.pem")});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("installed fx_good 1.0.0 in /usr/local/lib/actionhost/plugins/fx_good (signed by"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("image bb-with-echo sha256:"), std::string::npos) << r.output;
    EXPECT_NE(images().find("bb-with-echo"), std::string::npos);

    // A sandbox of that image: busybox's root, the plugin found in the image and owned by its root.
    const std::string state = work_ / "state";
    const std::string sh = "printf '%s\\n' '{\"action\":\"fixture_echo\",\"args\":{}}' "
                           "'{\"action\":\"run\",\"args\":{\"command\":\"stat -c %u:%g:%a /usr/local/lib/actionhost/plugins/fx_good/manifest.json; ls /bin/sh -l\"}}' | " +
                           sh_word(build_path("bin/ahctl")) + " -q -r sandbox --image bb-with-echo exec";
    const ProcessResult ran = run_process({"sh", "-c", sh}, 180, {"HOME=" + work_ / "home", "ACTIONHOST_STATE_DIR=" + state});
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    std::vector<json> obs;
    size_t at = 0;
    while (at < ran.output.size()) {
        const size_t nl = ran.output.find('\n', at);
        const json j = json::parse(ran.output.substr(at, nl == std::string::npos ? std::string::npos : nl - at), nullptr, false);
        if (j.is_object()) obs.push_back(j);
        at = nl == std::string::npos ? ran.output.size() : nl + 1;
    }
    ASSERT_EQ(obs.size(), 2u) << ran.output;
    EXPECT_EQ(obs[0]["observation"], "fixture") << ran.output;
    EXPECT_NE(obs[1].value("content", "").find("0:0:644"), std::string::npos) << ran.output;
    EXPECT_NE(obs[1].value("content", "").find("busybox"), std::string::npos) << ran.output;
}

TEST_F(PluginDistribution, BadCommandLinesAreUsageErrors) {
    const ProcessResult r = ahctl({"plugin", "frobnicate"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("unknown plugin subcommand 'frobnicate'"), std::string::npos) << r.output;
    const ProcessResult no_manifest = ahctl({"plugin", "push", work_.path(), reg() + "/x/y"});
    EXPECT_EQ(no_manifest.exit_code, 4) << no_manifest.output;
    EXPECT_NE(no_manifest.output.find("manifest.json: cannot be read"), std::string::npos) << no_manifest.output;
}

}  // namespace
