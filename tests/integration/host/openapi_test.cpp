// GET /openapi.json: a valid description of every route the host serves and every action installed
// plugins declare, which docs/api.md's examples satisfy and which breaks nothing of the published
// snapshot unnoted (openapi_check.py does the checks with Debian's python3-jsonschema).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
using nlohmann::json;

namespace {

ProcessResult check(const std::string &doc_file, const std::string &snapshot_file, const std::string &changes_file, const TempDir &dir) {
    ProcessResult plugins = run_process({build_path("bin/actionhost"), "--list-plugins"}, 30);
    write_file(dir / "routes.json", plugins.output);
    return run_process({"/usr/bin/python3", source_path("tests/integration/host/openapi_check.py"), doc_file,
                        source_path("docs/api.md"), snapshot_file, changes_file, dir / "routes.json"},
                       60);
}

}  // namespace

TEST(OpenApi, DescribesEveryRouteAndExampleAndBreaksNothingPublished) {
    HostOptions o;
    o.api_key = "openapi-key";
    HostProcess host(o);
    auto doc = host.get("/openapi.json");
    ASSERT_EQ(doc.status, 200) << doc.body;
    TempDir dir("ahopenapi");
    write_file(dir / "doc.json", doc.body);
    ProcessResult r = check(dir / "doc.json", source_path("docs/openapi/openapi.json"), source_path("docs/openapi/changes.md"), dir);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    auto page = host.get("/docs");
    EXPECT_EQ(page.status, 200);
    EXPECT_NE(page.body.find("<code>post /execute_action</code>"), std::string::npos);
    // Behind the key like every other path but /alive and /server_info.
    Http anonymous("127.0.0.1", host.port());
    EXPECT_EQ(anonymous.get("/openapi.json").status, 403);
}

// The check is not vacuous: a snapshot with an operation and an action argument the host no longer has
// fails it, and a note in changes.md lets exactly those through.
TEST(OpenApi, ARemovedOrNarrowedPartFailsUnlessNoted) {
    HostOptions o;
    o.api_key = "openapi-key";
    HostProcess host(o);
    TempDir dir("ahopenapi2");
    write_file(dir / "doc.json", host.get("/openapi.json").body);
    json snapshot = json::parse(read_file(source_path("docs/openapi/openapi.json")));
    snapshot["paths"]["/gone"]["get"] = {{"summary", "an operation since removed"}, {"responses", json::object()}};
    snapshot["components"]["schemas"]["Action_run"]["properties"]["args"]["properties"]["retired"] = {{"type", "boolean"}};
    snapshot["components"]["schemas"]["Action_run"]["properties"]["args"]["properties"]["cwd"]["type"] = {"string", "null", "integer"};
    write_file(dir / "snapshot.json", snapshot.dump());
    write_file(dir / "no-notes.md", "nothing\n");
    ProcessResult r = check(dir / "doc.json", dir / "snapshot.json", dir / "no-notes.md", dir);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("BREAKING: GET /gone"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("BREAKING: Action_run.retired"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("BREAKING: Action_run.cwd"), std::string::npos) << r.output;
    write_file(dir / "notes.md", "BREAKING: GET /gone  test\nBREAKING: Action_run.retired  test\nBREAKING: Action_run.cwd  test\n");
    r = check(dir / "doc.json", dir / "snapshot.json", dir / "notes.md", dir);
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

// Every operation the description names for the host itself answers (none is described but missing).
TEST(OpenApi, EveryDescribedOperationIsServed) {
    HostOptions o;
    o.api_key = "openapi-key";
    HostProcess host(o);
    const json doc = json::parse(host.get("/openapi.json").body);
    size_t probed = 0;
    for (const auto &[path, item] : doc["paths"].items()) {
        for (const auto &[method, operation] : item.items()) {
            if (operation.contains("x-plugin")) continue;  // answered by a plugin's module: its own tests
            // Not every operation answers 200: a WebSocket upgrade answers 101, the login form 303.
            const json &responses = operation.at("responses");
            if (responses.contains("200") && responses["200"].contains("content") && responses["200"]["content"].contains("text/event-stream"))
                continue;  // a stream that ends with the next action (stream_http_test.cpp)
            auto r = method == "get" ? host.get(path) : host.post_json(path, "{}");
            EXPECT_NE(r.status, 404) << method << " " << path;
            EXPECT_NE(r.status, 405) << method << " " << path;
            ++probed;
        }
    }
    EXPECT_GE(probed, 8u);
}
