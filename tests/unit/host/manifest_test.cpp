#include <actionhost/modules/manifest.hpp>

#include <gtest/gtest.h>

using namespace actionhost::modules;

namespace {
const char *kGood = R"({"name":"bash","kind":"plugin","version":"0.1.0","abi_version":"1.0.0","library":"libah_bash.so",
  "provides":{"actions":["run"]},"requires":{"executables":["bash"],"plugins":[]},"never_unload":true})";
}

TEST(Manifest, ParsesAValidManifest) {
    auto r = parse_manifest(kGood, "/opt/ah/lib/actionhost/plugins/bash");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().name, "bash");
    EXPECT_EQ(r.value().kind, ModuleKind::Plugin);
    EXPECT_EQ(r.value().abi_version.major, 1u);
    EXPECT_EQ(r.value().provides, std::vector<std::string>{"run"});
    EXPECT_EQ(r.value().requires_executables, std::vector<std::string>{"bash"});
    EXPECT_TRUE(r.value().never_unload);
    EXPECT_EQ(r.value().library_path(), "/opt/ah/lib/actionhost/plugins/bash/libah_bash.so");
}

TEST(Manifest, RefusesWhatIsMalformed) {
    struct Case {
        const char *json;
        const char *error;
    } cases[] = {
        {"{", "not valid JSON"},
        {"[]", "must be a JSON object"},
        {R"({"kind":"plugin"})", "\"name\" must be a non-empty string"},
        {R"({"name":"../x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":["a"]}})", "\"name\" must match"},
        {R"({"name":"x","kind":"thing","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":["a"]}})", "\"kind\" must be"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0","library":"l.so","provides":{"actions":["a"]}})", "MAJOR.MINOR.PATCH"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"../../evil.so","provides":{"actions":["a"]}})", "beside the manifest"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":[]}})", "at least one"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{}})", "at least one name in \"actions\" or \"http_routes\""},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":[],"http_routes":[]}})", "at least one"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"http_routes":["relative"]}})", "absolute paths"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"http_routes":["/a?b=1"]}})", "without query"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"http_routes":["/a b"]}})", "absolute paths"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"http_routes":"/a"}})", "array of strings"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"action":["a"]}})", "\"provides.action\" is not a field"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":["a"]},"load_on_route":true})", "needs \"provides.http_routes\""},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"http_routes":["/a"]},"load_on_route":1})", "\"load_on_route\" must be a boolean"},
        {R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"runtimes":["r"],"http_routes":["/a"]}})", "not a field of a runtime manifest"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":[1]}})", "array of names or an object of declarations"},
        {R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":["a"]}})", "\"provides.actions\" is not a field of a runtime manifest"},
        {R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","network_keys":"yes","provides":{"runtimes":["r"]}})", "\"network_keys\" must be true, false or a list"},
        {R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","network_keys":["network","proxy"],"provides":{"runtimes":["r"]}})", "\"proxy\" is not a network key"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","network_keys":true,"provides":{"actions":["a"]}})", "in a runtime manifest"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":["a"]},"never_unload":"yes"})", "boolean"},
        {R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","sandbox_keys":"volumes","provides":{"runtimes":["r"]}})", "\"sandbox_keys\" must be a list"},
        {R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","sandbox_keys":["sandbox.volumes"],"provides":{"runtimes":["r"]}})", "is not a [sandbox] key name"},
        {R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","sandbox_keys":["volumes"],"provides":{"actions":["a"]}})", "in a runtime manifest"},
    };
    for (const auto &c : cases) {
        auto r = parse_manifest(c.json, "/d");
        ASSERT_FALSE(r) << c.json;
        EXPECT_NE(r.error().message.find(c.error), std::string::npos) << c.json << " → " << r.error().message;
    }
}

TEST(Manifest, ARuntimeSaysWhichSandboxKeysItHonours) {
    auto some = parse_manifest(R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","sandbox_keys":["volumes","memory_limit_mb"],"provides":{"runtimes":["r"]}})", "/d");
    ASSERT_TRUE(some) << some.error().message;
    EXPECT_EQ(some.value().sandbox_keys, (std::vector<std::string>{"volumes", "memory_limit_mb"}));
    auto without = parse_manifest(R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"runtimes":["r"]}})", "/d");
    ASSERT_TRUE(without);
    EXPECT_TRUE(without.value().sandbox_keys.empty());
}

TEST(Manifest, ARuntimeSaysWhichNetworkKeysItTakes) {
    auto all = parse_manifest(R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","network_keys":true,"provides":{"runtimes":["r"]}})", "/d");
    ASSERT_TRUE(all) << all.error().message;
    EXPECT_EQ(all.value().network_keys, kNetworkKeys);  // true: every one of them (the sandbox runtime)
    auto some = parse_manifest(R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","network_keys":["network","dns"],"provides":{"runtimes":["r"]}})", "/d");
    ASSERT_TRUE(some) << some.error().message;
    EXPECT_EQ(some.value().network_keys, (std::vector<std::string>{"network", "dns"}));
    auto none = parse_manifest(R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","network_keys":false,"provides":{"runtimes":["r"]}})", "/d");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none.value().network_keys.empty());
    auto without = parse_manifest(R"({"name":"x","kind":"runtime","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"runtimes":["r"]}})", "/d");
    ASSERT_TRUE(without);
    EXPECT_TRUE(without.value().network_keys.empty());
}

TEST(Manifest, AcceptsAPluginThatOnlyAnswersHttpRoutes) {
    auto r = parse_manifest(R"({"name":"mcp","kind":"plugin","version":"0.1.0","abi_version":"1.0.0","library":"libah_mcp.so",
      "provides":{"http_routes":["/update_mcp_server","/mcp/sse"]},"load_on_route":true})",
                            "/d");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r.value().provides.empty());
    EXPECT_EQ(r.value().http_routes, (std::vector<std::string>{"/update_mcp_server", "/mcp/sse"}));
    EXPECT_TRUE(r.value().load_on_route);
}

TEST(Manifest, RoutesAndActionsTogetherAndLoadOnRouteDefaultsOff) {
    auto r = parse_manifest(R"({"name":"v","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so",
      "provides":{"actions":["a"],"http_routes":["/v/x"]}})",
                            "/d");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().provides, std::vector<std::string>{"a"});
    EXPECT_EQ(r.value().http_routes, std::vector<std::string>{"/v/x"});
    EXPECT_FALSE(r.value().load_on_route);
}

// provides.images: where a plugin saves PNGs for the web view; relative directories only, never out
// of the working directory, and they alone do not make a plugin provide something.
TEST(Manifest, ImageFeedsAreRelativeDirectoriesWithATitle) {
    auto with = [](const std::string &provides) {
        return parse_manifest(R"({"name":"b","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":)" +
                                  provides + "}",
                              "/d");
    };
    auto ok = with(R"({"actions":["a"],"images":[{"dir":".shots","title":"Pages"},{"dir":"out/img","title":"Plots"}]})");
    ASSERT_TRUE(ok) << ok.error().message;
    ASSERT_EQ(ok.value().image_feeds.size(), 2u);
    EXPECT_EQ(ok.value().image_feeds[1].dir, "out/img");
    EXPECT_EQ(ok.value().image_feeds[1].title, "Plots");
    for (const char *bad : {R"({"actions":["a"],"images":{"dir":".s","title":"t"}})", R"({"actions":["a"],"images":[{"dir":"/tmp","title":"t"}]})",
                            R"({"actions":["a"],"images":[{"dir":"..","title":"t"}]})", R"({"actions":["a"],"images":[{"dir":"a/../..","title":"t"}]})",
                            R"({"actions":["a"],"images":[{"dir":"../x","title":"t"}]})", R"({"actions":["a"],"images":[{"dir":"x","title":""}]})",
                            R"({"actions":["a"],"images":[{"dir":"x"}]})", R"({"actions":["a"],"images":[{"dir":"x","title":"t","extra":1}]})"}) {
        auto r = with(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().message.find("provides.images"), std::string::npos) << bad << ": " << r.error().message;
    }
    auto alone = with(R"({"images":[{"dir":"x","title":"t"}]})");
    ASSERT_FALSE(alone);
    EXPECT_NE(alone.error().message.find("at least one name"), std::string::npos) << alone.error().message;
}

TEST(Manifest, ParsesImageNeeds) {
    auto r = parse_manifest(R"({"name":"j","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so",
      "provides":{"actions":["a"]},"needs":[{"name":"python3","description":"python3 with ipykernel","package":"python3-ipykernel",
      "executables":["/usr/bin/python3","python3"],"python_module":"ipykernel","configured_by":["ACTIONHOST_KERNEL_CMD"]},
      {"name":"bash","description":"bash","package":"bash","executables":["bash"],"bundled":"libexec/bash"}]})",
                            "/d");
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r.value().needs.size(), 2u);
    EXPECT_EQ(r.value().needs[0].python_module, "ipykernel");
    EXPECT_EQ(r.value().needs[0].executables, (std::vector<std::string>{"/usr/bin/python3", "python3"}));
    EXPECT_EQ(r.value().needs[0].configured_by, std::vector<std::string>{"ACTIONHOST_KERNEL_CMD"});
    EXPECT_EQ(r.value().needs[1].bundled, "libexec/bash");
}

TEST(Manifest, RefusesMalformedNeeds) {
    const std::string head = R"({"name":"x","kind":"plugin","version":"1","abi_version":"1.0.0","library":"l.so","provides":{"actions":["a"]},"needs":)";
    struct Case {
        const char *needs;
        const char *error;
    } cases[] = {
        {R"({})", "\"needs\" must be an array of objects"},
        {R"([1])", "\"needs\" must be an array of objects"},
        {R"([{"description":"d","package":"p","executables":["x"]}])", "\"needs[].name\" must be a non-empty string"},
        {R"([{"name":"n","package":"p","executables":["x"]}])", "\"needs[].description\""},
        {R"([{"name":"n","description":"d","executables":["x"]}])", "\"needs[].package\""},
        {R"([{"name":"N N","description":"d","package":"p","executables":["x"]}])", "must match"},
        {R"([{"name":"n","description":"d","package":"p"}])", "lists no \"executables\" and nothing \"bundled\""},
        {R"([{"name":"n","description":"d","package":"p","executables":"x"}])", "array of strings"},
        {R"([{"name":"n","description":"d","package":"p","bundled":"/bin/sh"}])", "inside the install tree"},
        {R"([{"name":"n","description":"d","package":"p","bundled":"../../bin/sh"}])", "inside the install tree"},
        {R"([{"name":"n","description":"d","package":"p","executables":["x"],"exe":["y"]}])", "\"needs[].exe\" is not a field"},
    };
    for (const auto &c : cases) {
        auto r = parse_manifest(head + c.needs + "}", "/d");
        ASSERT_FALSE(r) << c.needs;
        EXPECT_NE(r.error().message.find(c.error), std::string::npos) << c.needs << " → " << r.error().message;
    }
}
