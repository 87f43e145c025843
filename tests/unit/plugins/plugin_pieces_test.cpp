// The pieces of `ahctl plugin push/install` that need no registry: Ed25519 signatures (libcrypto),
// the ELF platform, the plugin layer (libarchive) and the artifact manifest.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "images/blob_store.hpp"
#include "plugins/elf_platform.hpp"
#include "plugins/plugin_artifact.hpp"
#include "plugins/plugin_layer.hpp"
#include "plugins/plugin_signature.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::client::plugins;
using actionhost::testing::read_file;
using actionhost::testing::run_process;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
namespace fs = std::filesystem;

namespace {

const std::string kDigest = "sha256:" + std::string(64, 'a');

class PluginSignature : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const char *who : {"a", "b"}) {
            ASSERT_EQ(run_process({"openssl", "genpkey", "-algorithm", "ed25519", "-out", dir_ / (std::string(who) + ".pem")}).exit_code, 0);
            ASSERT_EQ(run_process({"openssl", "pkey", "-in", dir_ / (std::string(who) + ".pem"), "-pubout", "-out", dir_ / (std::string(who) + ".pub")}).exit_code, 0);
        }
    }
    std::string message_of(const std::function<void()> &f) {
        try {
            f();
        } catch (const std::exception &e) {
            return e.what();
        }
        return "";
    }
    TempDir dir_{"ahsig"};
};

TEST_F(PluginSignature, SignsAndVerifiesWithTheRightKeyOnly) {
    const std::string doc = sign_digest(kDigest, dir_ / "a.pem");
    const auto ok = verify_signature(doc, kDigest, {dir_ / "b.pub", dir_ / "a.pub"});
    EXPECT_EQ(ok.key_file, dir_ / "a.pub");
    EXPECT_EQ(ok.key_id, key_id_of_file(dir_ / "a.pub"));
    EXPECT_EQ(key_id_of_file(dir_ / "a.pem"), key_id_of_file(dir_ / "a.pub"));  // a private key's file names its public key
    EXPECT_NE(message_of([&] { verify_signature(doc, kDigest, {dir_ / "b.pub"}); }).find("verifies with none of the required keys"), std::string::npos);
    const std::string other = "sha256:" + std::string(64, 'b');
    EXPECT_NE(message_of([&] { verify_signature(doc, other, {dir_ / "a.pub"}); }).find("signs " + kDigest + ", not the artifact"), std::string::npos);
    // The document's digest changed to the other one: the signature no longer verifies.
    nlohmann::json forged = nlohmann::json::parse(doc);
    forged["signed"] = other;
    EXPECT_NE(message_of([&] { verify_signature(forged.dump(), other, {dir_ / "a.pub"}); }).find("verifies with none"), std::string::npos);
    EXPECT_NE(message_of([&] { verify_signature("{}", kDigest, {dir_ / "a.pub"}); }).find("malformed"), std::string::npos);
}

TEST_F(PluginSignature, BadKeysAreClearErrors) {
    write_file(dir_ / "junk.pem", "not a key");
    EXPECT_NE(message_of([&] { sign_digest(kDigest, dir_ / "junk.pem"); }).find("is no PEM private key"), std::string::npos);
    EXPECT_NE(message_of([&] { sign_digest(kDigest, dir_ / "missing.pem"); }).find("cannot read the key"), std::string::npos);
    ASSERT_EQ(run_process({"openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", dir_ / "ec.pem"}).exit_code, 0);
    EXPECT_NE(message_of([&] { sign_digest(kDigest, dir_ / "ec.pem"); }).find("is not an Ed25519 key"), std::string::npos);
}

TEST(PluginElf, PlatformFromTheHeader) {
    const std::string lib = read_file(std::string(AH_FIXTURE_DIR) + "/fx_good/libah_fx_good.so");
    EXPECT_EQ(elf_platform(lib.substr(0, 64)), host_platform());
    std::string arm = lib.substr(0, 64);
    arm[18] = static_cast<char>(183);
    arm[19] = 0;
    EXPECT_EQ(elf_platform(arm), "linux/arm64");
    EXPECT_THROW(elf_platform("#!/bin/sh\necho not an elf at all"), std::runtime_error);
    EXPECT_THROW(elf_platform(lib.substr(0, 10)), std::runtime_error);
}

TEST(PluginLayer, PacksTheSameFolderToTheSameDigestAndUnpacksIt) {
    TempDir dir("ahlayer");
    write_file(dir / "src/manifest.json", "{}");
    write_file(dir / "src/lib.so", "\x7f" "ELF binary");
    write_file(dir / "src/share/data.txt", "resource");
    fs::permissions(dir / "src/lib.so", fs::perms::owner_exec, fs::perm_options::add);
    const actionhost::client::images::BlobStore store(dir / "store");
    const auto first = write_plugin_layer(dir / "src", store, 1 << 20);
    const auto second = write_plugin_layer(dir / "src", store, 1 << 20);
    EXPECT_EQ(first.digest, second.digest);
    const LayerScan scan = scan_plugin_layer(store.path(first.digest), 1 << 20);
    EXPECT_EQ(scan.manifest_json, "{}");
    EXPECT_EQ(scan.heads.at("lib.so"), "\x7f" "ELF binary");
    EXPECT_EQ(scan.files, 3u);
    fs::create_directories(dir / "out");
    extract_plugin_layer(store.path(first.digest), dir / "out", 1 << 20);
    EXPECT_EQ(read_file(dir / "out/share/data.txt"), "resource");
    EXPECT_TRUE((fs::status(dir / "out/lib.so").permissions() & fs::perms::owner_exec) != fs::perms::none);
    EXPECT_THROW(scan_plugin_layer(store.path(first.digest), 5), std::runtime_error);  // unpacks past the limit

    fs::create_symlink("/etc/passwd", dir / "src/link");
    try {
        write_plugin_layer(dir / "src", store, 1 << 20);
        ADD_FAILURE() << "a link was packed";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("link is not packed"), std::string::npos) << e.what();
    }
}

TEST(PluginArtifact, ManifestRoundTripAndImagesAreNotPlugins) {
    ArtifactInfo info;
    info.name = "hello";
    info.version = "1.2.0";
    info.abi_version = "2.0.0";
    info.platform = "linux/amd64";
    info.requires_plugins = {{"jupyter", ">=1.2 <2"}};
    info.config = {media::kConfig, "sha256:" + std::string(64, 'c'), 10, nullptr, nullptr};
    info.layer = {media::kLayer, "sha256:" + std::string(64, 'd'), 20, nullptr, nullptr};
    const ArtifactInfo back = parse_artifact_manifest(artifact_manifest(info));
    EXPECT_EQ(back.name, "hello");
    EXPECT_EQ(back.requires_plugins.at("jupyter"), ">=1.2 <2");
    EXPECT_EQ(back.layer.digest, info.layer.digest);
    check_artifact_config(back, artifact_config(info));
    ArtifactInfo other = info;
    other.platform = "linux/arm64";
    EXPECT_THROW(check_artifact_config(back, artifact_config(other)), std::runtime_error);
    nlohmann::json image = nlohmann::json::parse(artifact_manifest(info));
    image["config"]["mediaType"] = "application/vnd.oci.image.config.v1+json";
    try {
        parse_artifact_manifest(image.dump());
        ADD_FAILURE() << "an image was taken for a plugin";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("not a plugin artifact"), std::string::npos) << e.what();
    }
    EXPECT_EQ(signature_tag("sha256:" + std::string(64, 'e')), "sha256-" + std::string(64, 'e') + ".sig");
}

}  // namespace
