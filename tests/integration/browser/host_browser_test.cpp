// The browser plugin loaded by the real actionhost: `browse` and `browse_interactive` over HTTP, the
// plugin loaded on first use, and the exact disabled error with --no-enable-browser.
#include <gtest/gtest.h>

#include <filesystem>

#include "page_server.hpp"
#include "support/host_process.hpp"
#include "support/socket_holders.hpp"

namespace at = actionhost::testing;
using nlohmann::json;

namespace {

json browse_action(const std::string &url) {
    return {{"action", "browse"}, {"args", {{"url", url}, {"thought", ""}, {"security_risk", -1}, {"return_axtree", false}}}};
}

json interactive_action(const std::string &code) {
    return {{"action", "browse_interactive"},
            {"args", {{"browser_actions", code}, {"thought", ""}, {"browsergym_send_msg_to_user", ""}, {"security_risk", -1}, {"return_axtree", false}}},
            {"timeout", 60.0}};
}

TEST(HostBrowser, DisabledBrowserGivesTheExactError) {
    at::HostOptions o;
    o.args = {"--no-enable-browser"};
    at::HostProcess host(o);
    for (const json &a : {browse_action("http://127.0.0.1:1/"), interactive_action("noop()")}) {
        json obs = host.execute(a);
        EXPECT_EQ(obs["observation"], "error") << obs.dump();
        EXPECT_EQ(obs["content"], "Browser functionality is not supported or disabled.");
    }
}

TEST(HostBrowser, BrowseAndInteractThroughTheHost) {
    at::PageServer server;
    at::HostProcess host;
    const std::string url = server.url("/index.html");
    json obs = host.execute(browse_action(url));
    ASSERT_EQ(obs["observation"], "browse") << obs.dump().substr(0, 2000);
    EXPECT_EQ(obs["extras"]["open_pages_urls"], json::array({url}));
    EXPECT_EQ(obs["extras"]["active_page_index"], 0);
    EXPECT_EQ(obs["extras"]["last_browser_action"], "goto(\"" + url + "\")");
    EXPECT_NE(obs["content"].get<std::string>().find("# Hello World"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(obs["extras"]["screenshot_path"].get<std::string>()));
    EXPECT_EQ(std::filesystem::path(obs["extras"]["screenshot_path"].get<std::string>()).parent_path(),
              std::filesystem::path(host.working_dir()) / ".browser_screenshots");
    // chromium (started by the plugin inside the host) holds none of the host's sockets.
    EXPECT_EQ(at::processes_holding_listener(host.port()), std::set<pid_t>{host.pid()});

    obs = host.execute(interactive_action("goto('" + server.url("/form.html") + "')"));
    ASSERT_EQ(obs["observation"], "browse");
    EXPECT_EQ(obs["extras"]["url"], server.url("/form.html"));
    EXPECT_NE(obs["content"].get<std::string>().find("textbox 'Name'"), std::string::npos);
}

}  // namespace
