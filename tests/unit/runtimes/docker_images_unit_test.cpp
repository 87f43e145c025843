// The docker backend's image plumbing without an engine: image references split as the docker CLI
// splits them, registry credentials found as the CLI finds them (auths, identity tokens, a real
// credential helper program), and `docker build` flags mapped to the Engine API's /build parameters.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <Poco/Base64Decoder.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "build_args.hpp"
#include "image_pull.hpp"
#include "registry_auth.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using nlohmann::json;

TEST(ImageReference, SplitsAsTheDockerCli) {
    struct Case {
        const char *image, *registry, *path, *tag, *digest, *from;
    } cases[] = {
        {"busybox", "docker.io", "library/busybox", "latest", "", "library/busybox"},
        {"nikolaik/python-nodejs:python3.12-nodejs22", "docker.io", "nikolaik/python-nodejs", "python3.12-nodejs22", "", "nikolaik/python-nodejs"},
        {"127.0.0.1:5000/a/b:1", "127.0.0.1:5000", "a/b", "1", "", "127.0.0.1:5000/a/b"},
        {"localhost/x", "localhost", "x", "latest", "", "localhost/x"},
        {"registry.example:5000/x", "registry.example:5000", "x", "latest", "", "registry.example:5000/x"},
        {"ghcr.io/o/r@sha256:abc", "ghcr.io", "o/r", "", "sha256:abc", "ghcr.io/o/r"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.image);
        docker::ImageReference r = docker::parse_image_reference(c.image);
        EXPECT_EQ(r.registry, c.registry);
        EXPECT_EQ(r.path, c.path);
        EXPECT_EQ(r.tag, c.tag);
        EXPECT_EQ(r.digest, c.digest);
        EXPECT_EQ(r.from_image(), c.from);
    }
    EXPECT_THROW(docker::parse_image_reference(""), std::invalid_argument);
    EXPECT_THROW(docker::parse_image_reference("a b"), std::invalid_argument);
}

namespace {

json decode_header(const std::string &value) {
    std::string padded = value;
    for (auto &ch : padded) ch = ch == '-' ? '+' : ch == '_' ? '/' : ch;
    std::istringstream in(padded);
    Poco::Base64Decoder dec(in);
    std::ostringstream out;
    out << dec.rdbuf();
    return json::parse(out.str());
}

}  // namespace

TEST(RegistryAuth, AuthsEntryAsTheCliWritesIt) {
    TempDir dir("ahdockercfg");
    // base64("ahuser:pw:with:colons") and an identity token for another registry; Docker Hub's URL key.
    write_file(dir / "config.json", R"({"auths":{"https://127.0.0.1:5000/v2/":{"auth":"YWh1c2VyOnB3OndpdGg6Y29sb25z"},
      "ghcr.io":{"identitytoken":"tok-1"},"https://index.docker.io/v1/":{"auth":"aHViOmh1YnB3"}}})");
    auto local = docker::registry_credentials(dir.path(), "127.0.0.1:5000");
    ASSERT_TRUE(local);
    EXPECT_EQ(local->username, "ahuser");
    EXPECT_EQ(local->password, "pw:with:colons");
    json header = decode_header(docker::registry_auth_header(*local));
    EXPECT_EQ(header, json({{"username", "ahuser"}, {"password", "pw:with:colons"}, {"serveraddress", "127.0.0.1:5000"}}));
    auto ghcr = docker::registry_credentials(dir.path(), "ghcr.io");
    ASSERT_TRUE(ghcr);
    EXPECT_EQ(decode_header(docker::registry_auth_header(*ghcr)).value("identitytoken", ""), "tok-1");
    auto hub = docker::registry_credentials(dir.path(), "docker.io");
    ASSERT_TRUE(hub);
    EXPECT_EQ(hub->username, "hub");
    EXPECT_EQ(hub->server, "https://index.docker.io/v1/");
    EXPECT_FALSE(docker::registry_credentials(dir.path(), "quay.io"));
    EXPECT_FALSE(docker::registry_credentials(dir / "nowhere", "quay.io"));
    write_file(dir / "config.json", "{not json");
    EXPECT_THROW(docker::registry_credentials(dir.path(), "ghcr.io"), std::runtime_error);
}

TEST(RegistryAuth, CredentialHelperIsRunAsTheCliRunsIt) {
    TempDir dir("ahdockercfg-helper");
    // A real credential helper speaking the protocol: `get`, the server on stdin, JSON out.
    write_file(dir / "bin/docker-credential-ahtest",
               "#!/bin/sh\n[ \"$1\" = get ] || exit 2\nread server\n"
               "case \"$server\" in\n"
               "  127.0.0.1:5000) printf '{\"ServerURL\":\"%s\",\"Username\":\"helped\",\"Secret\":\"s3\"}' \"$server\" ;;\n"
               "  ghcr.io) printf '{\"ServerURL\":\"%s\",\"Username\":\"<token>\",\"Secret\":\"idtok\"}' \"$server\" ;;\n"
               "  *) echo 'credentials not found in native keychain'; exit 1 ;;\nesac\n");
    chmod((dir / "bin/docker-credential-ahtest").c_str(), 0755);
    write_file(dir / "config.json", R"({"credHelpers":{"127.0.0.1:5000":"ahtest","ghcr.io":"ahtest","quay.io":"ahtest"},
      "auths":{"127.0.0.1:5000":{"auth":"bm90OnVzZWQ="}}})");
    const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir / "bin:" + old_path).c_str(), 1);
    auto helped = docker::registry_credentials(dir.path(), "127.0.0.1:5000");
    auto token = docker::registry_credentials(dir.path(), "ghcr.io");
    auto none = docker::registry_credentials(dir.path(), "quay.io");
    write_file(dir / "config.json", R"({"credsStore":"missing-helper"})");
    EXPECT_THROW(docker::registry_credentials(dir.path(), "quay.io"), std::runtime_error);
    setenv("PATH", old_path.c_str(), 1);
    ASSERT_TRUE(helped);
    EXPECT_EQ(helped->username, "helped");  // the helper wins over the auths entry, as in the CLI
    EXPECT_EQ(helped->password, "s3");
    ASSERT_TRUE(token);
    EXPECT_EQ(token->identity_token, "idtok");
    EXPECT_FALSE(none);
}

TEST(BuildArgs, MapToEngineApiParameters) {
    EXPECT_EQ(docker::build_query_from_args({}), "");
    const std::string q = docker::build_query_from_args(
        {"--build-arg", "A=1", "--build-arg=B=x y", "--network=host", "--no-cache", "--label", "k=v", "--add-host", "h:10.0.0.1",
         "--add-host=g:10.0.0.2", "--pull", "--target", "final", "--platform", "linux/amd64"});
    EXPECT_NE(q.find("&networkmode=host"), std::string::npos) << q;
    EXPECT_NE(q.find("&nocache=1"), std::string::npos) << q;
    EXPECT_NE(q.find("&pull=1"), std::string::npos) << q;
    EXPECT_NE(q.find("&target=final"), std::string::npos) << q;
    EXPECT_NE(q.find("&platform=linux%2Famd64"), std::string::npos) << q;
    EXPECT_NE(q.find("&buildargs=%7B%22A%22%3A%221%22%2C%22B%22%3A%22x%20y%22%7D"), std::string::npos) << q;
    EXPECT_NE(q.find("&labels=%7B%22k%22%3A%22v%22%7D"), std::string::npos) << q;
    EXPECT_NE(q.find("&extrahosts=h%3A10.0.0.1&extrahosts=g%3A10.0.0.2"), std::string::npos) << q;
    auto refused = [](const std::vector<std::string> &args, const std::string &why) {
        try {
            docker::build_query_from_args(args);
            ADD_FAILURE() << "accepted " << testing::PrintToString(args);
        } catch (const std::invalid_argument &e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    };
    refused({"--secret", "id=x"}, "--secret has no Docker Engine API equivalent");
    refused({"--build-arg"}, "--build-arg needs a value");
    refused({"--build-arg", "NOEQUALS"}, "wants NAME=VALUE");
}
