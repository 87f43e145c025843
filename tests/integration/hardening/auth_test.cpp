// The session API key on every endpoint: missing, wrong, a prefix, a longer key, another case — each 403
// with OpenHands' detail (a bearer token only when it is the key itself), and a refused upload leaves nothing behind. (The comparison itself is a
// double-HMAC one, host/http/auth.cpp; timing is not asserted on a shared CI machine.)
#include <gtest/gtest.h>

#include "support/host_process.hpp"
#include "support/http.hpp"
#include "support/temp_dir.hpp"
#include "tree_snapshot.hpp"

using namespace actionhost::testing;
using nlohmann::json;

TEST(HardeningAuth, WrongOrMissingKeysAreRefusedOnEveryEndpoint) {
    TempDir work{"ahwork"};
    const std::string key = "s3cret-key-0123456789";
    HostProcess host(HostOptions{.working_dir = work.path(), .api_key = key});
    Http anon("127.0.0.1", host.port());
    const std::vector<Headers> bad_keys = {{},
                                           {{"X-Session-API-Key", ""}},
                                           {{"X-Session-API-Key", "wrong"}},
                                           {{"X-Session-API-Key", key.substr(0, key.size() - 1)}},
                                           {{"X-Session-API-Key", key + "0"}},
                                           {{"X-Session-API-Key", "S3CRET-KEY-0123456789"}},
                                           {{"X-Session-API-Key", std::string(key.size(), 'x')}},
                                           {{"Authorization", "Bearer wrong"}},
                                           {{"Authorization", "Bearer " + key.substr(1)}},
                                           {{"Authorization", "Bearer"}},
                                           {{"Authorization", "Basic " + key}},
                                           {{"Authorization", key}},
                                           // A wrong X-Session-API-Key is not rescued by a right bearer token.
                                           {{"X-Session-API-Key", "wrong"}, {"Authorization", "Bearer " + key}}};
    const std::string write = json({{"action", {{"action", "write"}, {"args", {{"path", work / "w.txt"}, {"content", "x"}}}}}}).dump();
    for (const auto &h : bad_keys) {
        SCOPED_TRACE(h.empty() ? "no key" : h[0].first + ": " + h[0].second);
        for (const HttpResponse &r : {anon.post_json("/execute_action", write, h), anon.post_json("/list_files", "{}", h),
                                      anon.upload("/upload_file?destination=" + work.path(), "u.txt", "x", h),
                                      anon.get("/download_files?path=" + work.path(), h), anon.get("/stream?session=s&once=1", h),
                                      anon.request("POST", "/execute_action", "{not json", "application/json", h)}) {
            EXPECT_EQ(r.status, 403) << r.body;
            EXPECT_EQ(r.json(), json({{"detail", "Invalid API Key"}}));
        }
    }
    EXPECT_TRUE(snapshot_tree(work.path()).empty());
    // The right key works, so the refusals were about the key.
    EXPECT_EQ(anon.get("/alive").status, 200);
    EXPECT_EQ(anon.post_json("/execute_action", write, {{"X-Session-API-Key", key}}).status, 200);
    EXPECT_EQ(read_file(work / "w.txt").substr(0, 1), "x");
    // The key as a bearer token (what Prometheus sends) is the same key (docs/api.md).
    EXPECT_EQ(anon.post_json("/list_files", "{}", {{"Authorization", "Bearer " + key}}).status, 200);
}
