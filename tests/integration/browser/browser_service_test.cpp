// The browser plugin's service against a real headless Chromium and pages served on 127.0.0.1 by the
// test itself: navigation, forms, element interactions, uploads, downloads, error pages, timeouts.
#include <gtest/gtest.h>
#include <signal.h>

#include <Poco/Net/ServerSocket.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "browser_service.hpp"
#include "page_server.hpp"
#include "support/temp_dir.hpp"

namespace ab = actionhost::browser;
namespace at = actionhost::testing;
using nlohmann::json;

namespace {

class BrowserServiceTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ab::ServiceOptions o;
        o.working_dir = wd.path();
        svc = std::make_unique<ab::BrowserService>(o);
    }
    void TearDown() override { svc->shutdown(); }

    json run(const json &action) { return json::parse(svc->execute(action.dump(), wd.path())); }
    json browse(const std::string &url, double timeout = 60) {
        return run({{"action", "browse"}, {"args", {{"url", url}, {"thought", ""}, {"return_axtree", false}}}, {"timeout", timeout}});
    }
    json act(const std::string &code, double timeout = 60, bool return_axtree = false) {
        return run({{"action", "browse_interactive"},
                    {"args", {{"browser_actions", code}, {"thought", ""}, {"browsergym_send_msg_to_user", ""}, {"return_axtree", return_axtree}}},
                    {"timeout", timeout}});
    }
    // The bid of the first accessibility-tree line containing `needle`.
    static std::string bid_of(const json &obs, const std::string &needle) {
        std::string content = obs["content"];
        std::regex line_re("\\[([a-zA-Z0-9]+)\\] ([^\\n]*)");
        for (auto it = std::sregex_iterator(content.begin(), content.end(), line_re); it != std::sregex_iterator(); ++it)
            if ((*it)[2].str().find(needle) != std::string::npos) return (*it)[1].str();
        ADD_FAILURE() << "no tree line contains " << needle << " in:\n" << content;
        return "none";
    }
    static std::string tree(const json &obs) {
        std::string c = obs["content"];
        auto b = c.find("============== BEGIN accessibility tree ==============\n");
        auto e = c.find("\n============== END accessibility tree ==============");
        if (b == std::string::npos || e == std::string::npos) return "";
        b += std::string("============== BEGIN accessibility tree ==============\n").size();
        return c.substr(b, e - b);
    }

    at::TempDir wd{"ahbrowser"};
    at::PageServer server;
    std::unique_ptr<ab::BrowserService> svc;
};

TEST_F(BrowserServiceTest, BrowseReturnsPageAsMarkdownWithScreenshots) {
    const std::string url = server.url("/index.html");
    json obs = browse(url);
    ASSERT_EQ(obs["observation"], "browse") << obs.dump();
    EXPECT_EQ(obs["message"], "Visited " + url);
    const auto &x = obs["extras"];
    EXPECT_EQ(x["url"], url);
    EXPECT_EQ(x["trigger_by_action"], "browse");
    EXPECT_EQ(x["open_pages_urls"], json::array({url}));
    EXPECT_EQ(x["active_page_index"], 0);
    EXPECT_EQ(x["last_browser_action"], "goto(\"" + url + "\")");
    EXPECT_EQ(x["last_browser_action_error"], "");
    EXPECT_EQ(x["error"], false);
    EXPECT_EQ(x["goal_image_urls"], json::array());
    EXPECT_EQ(x["dom_object"], json::object());
    EXPECT_EQ(x["axtree_object"], json::object());
    EXPECT_EQ(x["extra_element_properties"], json::object());
    EXPECT_EQ(x["filter_visible_only"], false);
    const std::string content = obs["content"];
    EXPECT_EQ(content.rfind("[Current URL: " + url + "]\n============== BEGIN webpage content ==============\n", 0), 0u) << content;
    EXPECT_NE(content.find("# Hello World"), std::string::npos) << content;
    EXPECT_NE(content.find("**bold**"), std::string::npos) << content;
    EXPECT_NE(content.find("[the form](/form.html)"), std::string::npos) << content;
    EXPECT_NE(content.find("  * One"), std::string::npos) << content;
    EXPECT_EQ(content.find("secret alt text"), std::string::npos) << "images are dropped with their alt text";
    EXPECT_NE(content.find("\n============== END webpage content ==============\n"), std::string::npos);
    EXPECT_EQ(x["screenshot"].get<std::string>().rfind("data:image/png;base64,iVBOR", 0), 0u);
    EXPECT_EQ(x["set_of_marks"].get<std::string>().rfind("data:image/png;base64,iVBOR", 0), 0u);
    ASSERT_TRUE(x["screenshot_path"].is_string());
    const std::string shot = x["screenshot_path"];
    EXPECT_TRUE(std::regex_match(shot, std::regex(".*/\\.browser_screenshots/screenshot_\\d{8}_\\d{6}_\\d{6}\\.png")));
    EXPECT_EQ(std::filesystem::path(shot).parent_path().parent_path(), std::filesystem::path(wd.path()));
    std::string png = at::read_file(shot);
    ASSERT_GT(png.size(), 100u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    // 1280x720, read from the IHDR chunk.
    auto be32 = [&](size_t at) { return (uint8_t(png[at]) << 24) | (uint8_t(png[at + 1]) << 16) | (uint8_t(png[at + 2]) << 8) | uint8_t(png[at + 3]); };
    EXPECT_EQ(be32(16), 1280u);
    EXPECT_EQ(be32(20), 720u);
}

TEST_F(BrowserServiceTest, InteractiveLayoutNavigationAndHistory) {
    const std::string index = server.url("/index.html"), form = server.url("/form.html");
    json obs = act("goto(\"" + index + "\")");
    ASSERT_EQ(obs["observation"], "browse") << obs.dump();
    const std::string content = obs["content"];
    const std::string focused = obs["extras"]["focused_element_bid"];
    const std::string head = "[Current URL: " + index + "]\n[Focused element bid: " + focused + "]\n[Screenshot saved to: " +
                             obs["extras"]["screenshot_path"].get<std::string>() + "]\n\n[Action executed successfully.]\n"
                             "Accessibility tree of the COMPLETE webpage:\nNote: [bid] is the unique alpha-numeric identifier at the beginning of lines for each element in the AXTree. Always use bid to refer to elements in your actions.\n"
                             "============== BEGIN accessibility tree ==============\n";
    EXPECT_EQ(content.substr(0, head.size()), head);
    const std::string tail = "\n============== END accessibility tree ==============\n";
    ASSERT_GT(content.size(), tail.size());
    EXPECT_EQ(content.substr(content.size() - tail.size()), tail);
    std::string t = tree(obs);
    EXPECT_EQ(t.rfind("RootWebArea 'Test Page', focused", 0), 0u) << t;
    EXPECT_NE(t.find("heading 'Hello World'"), std::string::npos) << t;
    EXPECT_EQ(t.find("browsergym_id"), std::string::npos) << "markers must be stripped";
    std::string link = bid_of(obs, "link 'the form'");
    EXPECT_NE(t.find("[" + link + "] link 'the form', clickable"), std::string::npos) << t;

    obs = act("click('" + link + "')");
    EXPECT_EQ(obs["extras"]["url"], form) << obs["content"];
    EXPECT_EQ(obs["extras"]["last_browser_action"], "click('" + link + "')");
    EXPECT_EQ(obs["extras"]["error"], false);
    obs = act("go_back()");
    EXPECT_EQ(obs["extras"]["url"], index);
    obs = act("go_forward()");
    EXPECT_EQ(obs["extras"]["url"], form);
    EXPECT_EQ(obs["extras"]["open_pages_urls"], json::array({form}));
}

TEST_F(BrowserServiceTest, FormFillSelectCheckAndSubmit) {
    json obs = act("goto('" + server.url("/form.html") + "')");
    std::string name = bid_of(obs, "textbox 'Name'");
    std::string color = bid_of(obs, "combobox 'Color'");
    std::string agree = bid_of(obs, "checkbox 'Agree'");
    std::string send = bid_of(obs, "button 'Send'");
    obs = act("fill('" + name + "', 'Alice Smith')\nselect_option('" + color + "', 'Green')\nclick('" + agree + "')");
    ASSERT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
    std::string t = tree(obs);
    EXPECT_NE(t.find("[" + name + "] textbox 'Name' value='Alice Smith'"), std::string::npos) << t;
    EXPECT_NE(t.find("[" + color + "] combobox 'Color' value='Green'"), std::string::npos) << t;
    EXPECT_NE(t.find("[" + agree + "] checkbox 'Agree', clickable, focused, checked='true'"), std::string::npos) << t;
    obs = act("click('" + send + "')");
    EXPECT_EQ(obs["extras"]["url"], server.url("/submit?name=Alice+Smith&color=g&agree=yes")) << obs["content"];
    EXPECT_NE(tree(obs).find("query name=Alice+Smith&color=g&agree=yes"), std::string::npos) << tree(obs);
}

TEST_F(BrowserServiceTest, HoverFocusPressScrollInOneString) {
    json obs = act("goto('" + server.url("/interact.html") + "')");
    std::string hov = bid_of(obs, "button 'hover me'");
    std::string field = bid_of(obs, "textbox 'Field'");
    std::string keys = bid_of(obs, "textbox 'Keys'");
    obs = act("hover('" + hov + "'); focus('" + field + "')");
    ASSERT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
    EXPECT_NE(tree(obs).find("button 'hovered'"), std::string::npos) << tree(obs);
    EXPECT_NE(tree(obs).find("StaticText 'focused'"), std::string::npos) << tree(obs);
    EXPECT_EQ(obs["extras"]["focused_element_bid"], field);
    obs = act("fill('" + keys + "', 'abc')\n# now submit it\npress('" + keys + "', 'Enter')");
    ASSERT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
    EXPECT_NE(tree(obs).find("enter pressed with abc"), std::string::npos) << tree(obs);
    EXPECT_EQ(obs["extras"]["focused_element_bid"], keys);
    obs = act("press('" + keys + "', 'ControlOrMeta+a')\npress('" + keys + "', 'Backspace')");
    EXPECT_NE(tree(obs).find("[" + keys + "] textbox 'Keys', clickable, focused"), std::string::npos) << tree(obs);
    obs = act("scroll(0, 500)");
    ASSERT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
    EXPECT_NE(tree(obs).find("scrolled 500"), std::string::npos) << tree(obs);
}

TEST_F(BrowserServiceTest, UploadFileThroughItsBid) {
    at::write_file(wd / "upload me.txt", "hello");
    json obs = act("goto('" + server.url("/upload.html") + "')");
    std::string input = bid_of(obs, "Choose file");
    obs = act("upload_file('" + input + "', 'upload me.txt')");
    ASSERT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
    EXPECT_NE(tree(obs).find("chosen upload me.txt 5"), std::string::npos) << tree(obs);
    obs = act("upload_file('" + input + "', '/no/such/file')");
    EXPECT_EQ(obs["extras"]["error"], true);
    EXPECT_NE(obs["extras"]["last_browser_action_error"].get<std::string>().find("ENOENT"), std::string::npos);
}

TEST_F(BrowserServiceTest, PdfDownloadsBecomeDownloadObservations) {
    json obs = act("goto('" + server.url("/download.html") + "')");
    std::string link = bid_of(obs, "link 'get the pdf'");
    const std::string action = "click('" + link + "')";
    obs = act(action);
    ASSERT_EQ(obs["observation"], "download") << obs.dump().substr(0, 2000);
    const std::string path = wd / "file_1.pdf";
    EXPECT_EQ(obs["extras"]["file_path"], path);
    EXPECT_EQ(obs["message"], "Downloaded the file at location: " + path);
    EXPECT_EQ(obs["content"], "Execution of the previous action " + action +
                                  " resulted in a file download. The downloaded file is saved at location: " + path);
    EXPECT_EQ(at::read_file(path), at::tiny_pdf());
    EXPECT_TRUE(std::filesystem::is_directory(wd / ".downloads"));
    // A goto straight to the file downloads it too (an error in Playwright, a download here).
    obs = act("goto('" + server.url("/doc.pdf") + "')");
    ASSERT_EQ(obs["observation"], "download") << obs.dump().substr(0, 2000);
    EXPECT_EQ(obs["extras"]["file_path"], wd / "file_2.pdf");
}

TEST_F(BrowserServiceTest, NotFoundPageAndRefusedPort) {
    json obs = browse(server.url("/missing"));
    EXPECT_EQ(obs["extras"]["error"], false);
    EXPECT_NE(obs["content"].get<std::string>().find("Not Found page"), std::string::npos) << obs["content"];
    int port;
    {
        Poco::Net::ServerSocket s(Poco::Net::SocketAddress("127.0.0.1", 0));
        port = s.address().port();
    }
    const std::string refused = "http://127.0.0.1:" + std::to_string(port) + "/";
    obs = browse(refused);
    EXPECT_EQ(obs["extras"]["error"], true);
    EXPECT_EQ(obs["extras"]["last_browser_action_error"], "Error: Page.goto: net::ERR_CONNECTION_REFUSED at " + refused);
    const std::string content = obs["content"];
    EXPECT_NE(content.find("================ BEGIN error message ===============\nThe following error occurred when trying to visit the URL:\n"
                           "Error: Page.goto: net::ERR_CONNECTION_REFUSED at " + refused + "\n================ END error message ===============\n"
                           "============== BEGIN webpage content =============="),
              std::string::npos)
        << content;
    obs = act("goto('" + refused + "')");
    EXPECT_NE(obs["content"].get<std::string>().find("The following error occurred when executing the last action:\nError: Page.goto: net::ERR_CONNECTION_REFUSED"),
              std::string::npos);
}

TEST_F(BrowserServiceTest, NeverLoadingPageTimesOutAndBrowserKeepsWorking) {
    const auto t0 = std::chrono::steady_clock::now();
    json obs = act("goto('" + server.url("/slow.html") + "')", 4.0);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(obs["observation"], "browse") << obs.dump().substr(0, 2000);
    EXPECT_EQ(obs["extras"]["error"], true);
    const std::string err = obs["extras"]["last_browser_action_error"];
    EXPECT_TRUE(std::regex_search(err, std::regex("^TimeoutError: Page\\.goto: Timeout \\d+ms exceeded\\."))) << err;
    EXPECT_LT(took, 20.0);
    obs = browse(server.url("/index.html"));
    EXPECT_EQ(obs["extras"]["error"], false) << obs["content"];
    EXPECT_NE(obs["content"].get<std::string>().find("# Hello World"), std::string::npos);
}

TEST_F(BrowserServiceTest, BadActionsSetTheErrorAndNothingBreaks) {
    json obs = act("goto('" + server.url("/form.html") + "')");
    std::string name = bid_of(obs, "textbox 'Name'");
    std::string para = bid_of(obs, "paragraph");
    struct Case {
        std::string code, error_prefix;
    } cases[] = {
        {"click(", "SyntaxError: "},
        {"foo()", "NameError: Invalid action type 'foo'."},
        {"hello", "ValueError: Received an empty action."},
        {"# click('5')", "ValueError: Received an empty action."},
        {"click('9999')", "ValueError: Could not find element with bid \"9999\""},
        {"click(12)", "ValueError: expected a string, got 12"},
        {"fill('" + name + "')", "TypeError: fill() missing 1 required positional argument: 'value'"},
        {"fill('" + para + "', 'x')", "Error: Locator.fill: Error: Element is not an <input>, <textarea> or [contenteditable] element"},
        {"click(bid)", "SyntaxError: arguments must be literal values"},
        {"send_msg_to_user(3)", "ValueError: Forbidden value: 3 is not a string"},
    };
    for (const auto &c : cases) {
        obs = act(c.code);
        ASSERT_EQ(obs["observation"], "browse") << c.code;
        EXPECT_EQ(obs["extras"]["error"], true) << c.code;
        EXPECT_EQ(obs["extras"]["last_browser_action"], c.code);
        EXPECT_EQ(obs["extras"]["last_browser_action_error"].get<std::string>().rfind(c.error_prefix, 0), 0u)
            << c.code << " -> " << obs["extras"]["last_browser_action_error"];
    }
    // The first failing call stops the rest; earlier effects stay.
    obs = act("fill('" + name + "', 'kept')\nclick('9999')\nfill('" + name + "', 'never')");
    EXPECT_NE(tree(obs).find("value='kept'"), std::string::npos) << tree(obs);
    obs = act("send_msg_to_user('x')\nnoop(10)");
    EXPECT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
}

TEST_F(BrowserServiceTest, ReturnAxtreeFillsTheObjects) {
    json obs = act("goto('" + server.url("/form.html") + "')", 60, true);
    const auto &x = obs["extras"];
    ASSERT_TRUE(x["axtree_object"].contains("nodes"));
    EXPECT_GT(x["axtree_object"]["nodes"].size(), 5u);
    std::string name = bid_of(obs, "textbox 'Name'");
    ASSERT_TRUE(x["extra_element_properties"].contains(name));
    const auto &p = x["extra_element_properties"][name];
    EXPECT_EQ(p["visibility"], 1.0);
    EXPECT_EQ(p["clickable"], true);
    EXPECT_EQ(p["set_of_marks"], true);
    ASSERT_TRUE(p["bbox"].is_array());
    EXPECT_GT(p["bbox"][2].get<double>(), 10.0);
    EXPECT_TRUE(x["dom_object"].contains("documents"));
}

TEST_F(BrowserServiceTest, AboutBlankMatchesBrowserGym) {
    json obs = act("noop(0)");
    EXPECT_EQ(obs["extras"]["url"], "about:blank");
    EXPECT_EQ(tree(obs), "RootWebArea '', focused, url='about:blank'\n\t[2] generic");
    EXPECT_EQ(obs["extras"]["focused_element_bid"], "2");
}

TEST_F(BrowserServiceTest, DeadBrowserIsRestarted) {
    json obs = browse(server.url("/index.html"));
    ASSERT_EQ(obs["extras"]["error"], false);
    auto pids = svc->browser_pids();
    ASSERT_FALSE(pids.empty());
    for (pid_t p : pids) ::kill(p, SIGKILL);
    // The first action after the crash may report the lost connection; the browser comes back.
    json next;
    for (int i = 0; i < 3; ++i) {
        next = browse(server.url("/index.html"));
        if (next["observation"] == "browse" && next["extras"]["error"] == false) break;
    }
    EXPECT_EQ(next["extras"]["error"], false) << next.dump().substr(0, 1000);
    EXPECT_NE(next["content"].get<std::string>().find("# Hello World"), std::string::npos);
}

TEST_F(BrowserServiceTest, DragAndDropDoubleClickAndTabs) {
    json obs = act("goto('" + server.url("/drag.html") + "')");
    std::string src = bid_of(obs, "drag source"), dst = bid_of(obs, "drop target"), dbl = bid_of(obs, "button 'double me'");
    obs = act("drag_and_drop('" + src + "', '" + dst + "')");
    ASSERT_EQ(obs["extras"]["error"], false) << obs["extras"]["last_browser_action_error"];
    EXPECT_NE(tree(obs).find("dropped on target"), std::string::npos) << tree(obs);
    obs = act("dblclick('" + dbl + "')");
    EXPECT_NE(tree(obs).find("double clicked"), std::string::npos) << tree(obs);

    obs = act("new_tab()");
    EXPECT_EQ(obs["extras"]["open_pages_urls"], json::array({server.url("/drag.html"), "about:blank"}));
    EXPECT_EQ(obs["extras"]["active_page_index"], 1);
    obs = act("goto('" + server.url("/index.html") + "')\ntab_focus(0)");
    EXPECT_EQ(obs["extras"]["open_pages_urls"], json::array({server.url("/drag.html"), server.url("/index.html")}));
    EXPECT_EQ(obs["extras"]["active_page_index"], 0);
    EXPECT_EQ(obs["extras"]["url"], server.url("/drag.html"));
    obs = act("tab_focus(1)\ntab_close()");
    EXPECT_EQ(obs["extras"]["open_pages_urls"], json::array({server.url("/drag.html")}));
    EXPECT_EQ(obs["extras"]["active_page_index"], 0);
    obs = act("tab_focus(5)");
    EXPECT_EQ(obs["extras"]["last_browser_action_error"], "IndexError: list index out of range");
}

TEST_F(BrowserServiceTest, PointerActionsWaitForAStableElement) {
    json obs = act("goto('" + server.url("/moving.html") + "')");
    std::string restless = bid_of(obs, "button 'restless'"), calm = bid_of(obs, "button 'calm'");
    obs = act("click('" + restless + "')");
    EXPECT_NE(obs["extras"]["last_browser_action_error"].get<std::string>().find("waiting for element to be stable"), std::string::npos)
        << obs["extras"]["last_browser_action_error"];
    EXPECT_NE(tree(obs).find("nothing clicked"), std::string::npos);
    obs = act("click('" + calm + "')");
    EXPECT_EQ(obs["extras"]["last_browser_action_error"], "");
    EXPECT_NE(tree(obs).find("calm clicked"), std::string::npos) << tree(obs);
}

TEST(BrowserServiceLifecycle, ShutdownKillsTheProcessGroupAndRemovesTheProfile) {
    at::TempDir wd("ahbrowser");
    const std::string tmp = wd / "tmp";
    std::filesystem::create_directories(tmp);
    const char *old_tmp = std::getenv("TMPDIR");
    std::string saved = old_tmp != nullptr ? old_tmp : "";
    ::setenv("TMPDIR", tmp.c_str(), 1);  // the browser profile goes here
    ab::ServiceOptions o;
    o.working_dir = wd.path();
    ab::BrowserService svc(o);
    auto started = svc.start_now();
    ASSERT_TRUE(started) << started.error().message;
    if (old_tmp != nullptr) ::setenv("TMPDIR", saved.c_str(), 1); else ::unsetenv("TMPDIR");
    auto pids = svc.browser_pids();
    ASSERT_GE(pids.size(), 2u) << "chromium runs helper processes in its group";
    EXPECT_FALSE(std::filesystem::is_empty(tmp));
    svc.shutdown();
    for (pid_t p : pids) {
        // Gone, or a zombie waiting for a reaper (helpers re-parented to a PID 1 that does not reap).
        std::ifstream stat("/proc/" + std::to_string(p) + "/stat");
        std::string line;
        std::getline(stat, line);
        const bool zombie = line.find(") Z ") != std::string::npos;
        EXPECT_TRUE(::kill(p, 0) != 0 || zombie) << "pid " << p << " survived shutdown: " << line;
    }
    EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "the profile dir is removed";
    EXPECT_TRUE(svc.browser_pids().empty());
}

TEST(BrowserServiceDisabled, AnswersTheExactDisabledError) {
    at::TempDir wd("ahbrowser");
    ab::ServiceOptions o;
    o.working_dir = wd.path();
    o.browser_enabled = false;
    ab::BrowserService svc(o);
    for (const char *action : {"browse", "browse_interactive"}) {
        json a = {{"action", action}, {"args", {{"url", "http://127.0.0.1:1/"}, {"browser_actions", "noop()"}}}};
        json obs = json::parse(svc.execute(a.dump(), wd.path()));
        EXPECT_EQ(obs, json({{"message", "Browser functionality is not supported or disabled."},
                             {"observation", "error"},
                             {"content", "Browser functionality is not supported or disabled."},
                             {"extras", {{"error_id", ""}}}}));
    }
    EXPECT_TRUE(svc.browser_pids().empty());
}

}  // namespace
