// The web view in a real browser: headless chromium signs in through the login form with the session
// key, types into the page's terminal (xterm.js over /ui/terminal, trusted input events as a user's
// keyboard makes) and the command runs in the host's bash; the page shows its output and the file tree
// shows the file it made. A wrong key gets the login page's error, no cookie and no shell.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "support/headless_chromium.hpp"
#include "support/host_process.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::chromium_path;
using actionhost::testing::HeadlessChromium;
using actionhost::testing::HostOptions;
using actionhost::testing::HostProcess;

namespace {

const std::string kKey = "web-view-browser-key";
using Clock = std::chrono::steady_clock;

HostOptions options() {
    HostOptions o;
    o.api_key = kKey;
    return o;
}

// Bounded: true once `path` exists, false after `timeout_s`.
bool wait_for_file(const std::string &path, double timeout_s) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (Clock::now() < deadline) {
        if (std::filesystem::exists(path)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return std::filesystem::exists(path);
}

// Opens /ui, and types `key` into the login form's field and presses Enter, as a user would.
void sign_in(HeadlessChromium &browser, const std::string &key) {
    ASSERT_TRUE(browser.wait_for("location.pathname === '/ui' && document.readyState === 'complete' && "
                                 "!!document.getElementById('key')",
                                 20))
        << browser.outer_html();
    ASSERT_EQ(browser.evaluate("document.getElementById('key').focus(); document.activeElement.id"), "key");
    browser.insert_text(key);
    ASSERT_EQ(browser.evaluate("document.getElementById('key').value"), key);
    browser.press_key("Enter", "Enter", 13, 0, "\r");
}

const std::string kTerminalShown = "!!document.querySelector('#term .xterm')";
const std::string kConnected = "(document.getElementById('status') || {}).textContent === 'terminal web'";

std::string screen(HeadlessChromium &browser) {
    auto rows = browser.evaluate("(document.querySelector('#term .xterm-rows') || {}).innerText || ''");
    return rows.is_string() ? rows.get<std::string>() : "";
}

}  // namespace

TEST(WebViewInChromium, AWrongKeyGetsTheLoginErrorAndNoTerminal) {
    auto chromium = chromium_path();
    ASSERT_TRUE(chromium) << "chromium is not installed (Debian package chromium)";
    HostProcess host(options());
    HeadlessChromium browser(*chromium, "http://127.0.0.1:" + std::to_string(host.port()) + "/ui");
    sign_in(browser, "not-" + kKey);
    ASSERT_TRUE(browser.wait_for("document.readyState === 'complete' && "
                                 "document.body.innerText.includes(\"That is not this host's session key.\")",
                                 20))
        << browser.outer_html();
    EXPECT_EQ(browser.evaluate("!!document.getElementById('key')"), true) << "the form is offered again";
    EXPECT_EQ(browser.evaluate(kTerminalShown), false);
    // Reloading /ui finds no cookie: the login form again, not the view.
    browser.evaluate("location.href = '/ui'");
    ASSERT_TRUE(browser.wait_for("document.readyState === 'complete' && !!document.getElementById('key') && "
                                 "!document.body.innerText.includes('That is not')",
                                 20))
        << browser.outer_html();
    EXPECT_EQ(browser.evaluate(kTerminalShown), false);
    // And no shell was started for it.
    EXPECT_EQ(host.get("/ui/terminals").json(), nlohmann::json::array());
}

TEST(WebViewInChromium, TypingIntoThePageReachesBashAndTheFileTreeShowsTheResult) {
    auto chromium = chromium_path();
    ASSERT_TRUE(chromium) << "chromium is not installed (Debian package chromium)";
    HostProcess host(options());
    const auto start = Clock::now();
    HeadlessChromium browser(*chromium, "http://127.0.0.1:" + std::to_string(host.port()) + "/ui");
    sign_in(browser, kKey);
    ASSERT_TRUE(browser.wait_for(kTerminalShown + " && " + kConnected, 20)) << browser.outer_html() << "\n" << host.log();
    // The key is in no URL and the cookie is out of the page's scripts' reach (HttpOnly).
    EXPECT_EQ(browser.evaluate("location.href.includes('" + kKey + "')"), false);
    EXPECT_EQ(browser.evaluate("document.cookie"), "");
    // Connected, the terminal has the keyboard: what is typed goes to xterm's input element.
    ASSERT_TRUE(browser.wait_for("document.activeElement && document.activeElement.classList.contains('xterm-helper-textarea')", 10))
        << browser.evaluate("document.activeElement && document.activeElement.outerHTML").dump();

    browser.insert_text("touch webview_typed.txt && echo made-$((6*7))");
    browser.press_key("Enter", "Enter", 13, 0, "\r");
    const std::string made = host.working_dir() + "/webview_typed.txt";
    EXPECT_TRUE(wait_for_file(made, 10)) << screen(browser) << "\n" << host.log();
    // bash's output came back to the page (the echo's result, not the typed line's echo).
    EXPECT_TRUE(browser.wait_for("(document.querySelector('#term .xterm-rows') || {}).innerText.includes('made-42')", 10))
        << screen(browser);
    // The file tree picks up the new file on its own (it refreshes while the page is open).
    EXPECT_TRUE(browser.wait_for("[...document.querySelectorAll('#files a')].some((a) => a.textContent === 'webview_typed.txt')", 10))
        << browser.evaluate("document.getElementById('files').innerText").dump();

    const std::string dir = AH_WEBVIEW_ARTEFACT_DIR;
    std::filesystem::create_directories(dir);
    const std::string shot = dir + "/web_view_terminal.png";
    browser.screenshot(shot);
    const std::string png = actionhost::testing::read_file(shot);
    EXPECT_GT(png.size(), 5000u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    std::cout << "[web view] sign-in -> typed command seen in the file tree: "
              << std::chrono::duration<double>(Clock::now() - start).count() << " s; screenshot " << shot << "\n";
}
