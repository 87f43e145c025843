// Headless chromium driven over the DevTools protocol, for tests of pages the host serves (the web
// view, VS Code behind the vscode plugin): open a URL, evaluate in the page, type as a user, take a
// screenshot. (--dump-dom alone cannot wait for a page that renders after its load event, and
// --virtual-time-budget makes pages' own connection timeouts fire at once.)
#pragma once

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "support/temp_dir.hpp"

namespace actionhost::common {
class ChildProcess;
}

namespace actionhost::testing {

// Debian's chromium, or nullopt.
std::optional<std::string> chromium_path();

class HeadlessChromium {
  public:
    // Starts chromium on `url` with a fresh profile; throws when it does not come up within 60 s.
    HeadlessChromium(const std::string &chromium, const std::string &url);
    ~HeadlessChromium();  // kills chromium's process group
    HeadlessChromium(const HeadlessChromium &) = delete;
    HeadlessChromium &operator=(const HeadlessChromium &) = delete;

    // Runtime.evaluate of `expression` (returnByValue); the result's value.
    nlohmann::json evaluate(const std::string &expression);
    // Polls `expression` until it is true or `timeout_s` passes.
    bool wait_for(const std::string &expression, double timeout_s);
    // A key pressed and released as a user would (Input.dispatchKeyEvent: trusted events, unlike
    // events made in the page). `modifiers`: 1 Alt, 2 Ctrl, 4 Meta, 8 Shift. `text`: what the key
    // types, e.g. "\r" for Enter (without it no keypress follows, and a form field is not submitted).
    void press_key(const std::string &key, const std::string &code, int key_code, int modifiers = 0,
                   const std::string &text = "");
    // Text typed into the focused element as an input method would (Input.insertText: trusted).
    void insert_text(const std::string &text);
    // Page.captureScreenshot written to `path` as PNG.
    void screenshot(const std::string &path);
    std::string outer_html();

  private:
    nlohmann::json call(const std::string &method, const nlohmann::json &params, double timeout_s = 30);
    std::unique_ptr<TempDir> profile_;
    std::unique_ptr<common::ChildProcess> child_;  // killed with its whole session when this ends
    struct Socket;
    std::unique_ptr<Socket> ws_;
    int next_id_ = 1;
};

}  // namespace actionhost::testing
