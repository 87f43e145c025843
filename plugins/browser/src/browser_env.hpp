// One headless Chromium driven over CDP, as BrowserGym's environment presents it: `step(action)`
// runs BrowserGym action code on the active page and returns the observation (URLs, screenshot,
// set-of-marks image, accessibility tree with bids, element properties, focused bid, page text).
//
// Threads: not thread-safe; the plugin serialises calls. The browser starts on first use, and a dead
// browser (crash, kill, hung renderer) is replaced by a fresh one on the next step.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

#include "action_parser.hpp"
#include "action_signatures.hpp"
#include "cdp_connection.hpp"
#include "chromium_process.hpp"
#include "keyboard.hpp"

namespace actionhost::browser {

struct EnvOptions {
    std::string chromium_path;  // "" = find_chromium("")
    std::string downloads_dir;  // Browser.setDownloadBehavior target (created if missing, the browser user's)
    // Who the browser runs as and with which environment (ChromiumOptions); unset: the host's user.
    std::optional<common::UserSwitch> user;
    std::optional<std::vector<std::string>> env;
    // Told once when the browser cannot use its own sandbox here (the plugin logs it).
    std::function<void(const std::string &)> note;
    int width = 1280;
    int height = 720;
    std::chrono::milliseconds start_timeout{30000};
    std::vector<std::string> extra_args;
};

struct StepRequest {
    std::string action_text;                       // reported as last_action
    std::optional<std::vector<ParsedCall>> calls;  // pre-built calls (browse); else action_text is parsed
    Clock::time_point deadline;                    // the whole step, observation included
    std::string cwd;                               // relative upload_file paths resolve here
    bool want_text_content = false;
    bool want_objects = false;                     // dom_object (the DOM snapshot) for return_axtree
};

struct DownloadResult {
    std::string dir;   // downloads_dir
    std::string name;  // the download's file in it: the browser's guid, checked to be a plain name
    std::string suggested_filename;
};

struct StepResult {
    std::string url;
    std::vector<std::string> open_pages_urls;
    int active_page_index = 0;
    std::string screenshot_b64;  // PNG, base64 (no data-URL prefix)
    std::string som_b64;
    nlohmann::json axtree_object = nlohmann::json::object();
    nlohmann::json extra_element_properties = nlohmann::json::object();
    nlohmann::json dom_object = nlohmann::json::object();
    nlohmann::json focused_element_bid = "";  // string, or null when the focused element has no bid
    std::string last_action;
    std::string last_action_error;
    std::string text_content;
    std::optional<DownloadResult> download;
};

// The step could not produce an observation (browser gone, deadline passed while observing).
struct StepFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class BrowserEnv {
  public:
    explicit BrowserEnv(EnvOptions options);
    ~BrowserEnv();
    BrowserEnv(const BrowserEnv &) = delete;
    BrowserEnv &operator=(const BrowserEnv &) = delete;

    // Starts (or restarts) the browser if it is not running. Throws StepFailure.
    void ensure_started(Clock::time_point deadline);
    StepResult step(const StepRequest &request);
    // Kills the browser and its process group, removes its profile.
    void shutdown();

    bool running();
    std::vector<pid_t> browser_pids() const;
    // Runs a script in the active page's main world and returns its value (eval tasks read the page's
    // state this way). Throws on a script exception or a dead browser.
    nlohmann::json evaluate_on_active_page(const std::string &expression, Clock::time_point deadline);
    // The active page's URL as the page reports it.
    std::string active_page_url(Clock::time_point deadline);
    // How many times a browser was started: a restart invalidates page state such as an eval episode.
    int start_count() const { return start_count_; }
    double last_start_seconds() const { return last_start_seconds_; }

  private:
    struct Page {
        std::string target_id;
        std::string session_id;
    };

    // Lifecycle and pages (browser_env.cpp).
    void start(Clock::time_point deadline);
    void give_to_browser_user(const std::string &dir) const;
    void stop();
    Page attach(const std::string &target_id, Clock::time_point deadline);
    void reconcile_pages(Clock::time_point deadline);
    Page &active();
    void settle(uint64_t step_mark, bool interacted, Clock::time_point deadline);
    std::optional<DownloadResult> collect_download(uint64_t step_mark, Clock::time_point deadline);
    nlohmann::json cdp(const std::string &method, const nlohmann::json &params, const std::string &session,
                       Clock::time_point deadline);

    // Actions (browser_actions.cpp). Each throws ActionError with BrowserGym's "<Class>: <message>".
    void run_action(const BoundCall &call, const StepRequest &request);
    void act_goto(const nlohmann::json &url, Clock::time_point deadline);
    void act_history(int delta, const char *api, Clock::time_point deadline);
    void act_click(const std::string &bid, const nlohmann::json &button, const nlohmann::json &modifiers, int count,
                   Clock::time_point deadline);
    void act_hover(const std::string &bid, Clock::time_point deadline);
    void act_fill(const std::string &bid, const nlohmann::json &value, Clock::time_point deadline);
    void act_select(const std::string &bid, const nlohmann::json &options, Clock::time_point deadline);
    void act_press(const std::string &bid, const nlohmann::json &key_comb, Clock::time_point deadline);
    void act_focus(const std::string &bid, Clock::time_point deadline);
    void act_scroll(const nlohmann::json &dx, const nlohmann::json &dy, Clock::time_point deadline);
    void act_drag(const std::string &from, const std::string &to, Clock::time_point deadline);
    void act_upload(const std::string &bid, const nlohmann::json &files, const std::string &cwd, Clock::time_point deadline);
    void act_new_tab(Clock::time_point deadline);
    void act_tab_close(Clock::time_point deadline);
    void act_tab_focus(const nlohmann::json &index, Clock::time_point deadline);

    std::string resolve(const std::string &bid, Clock::time_point deadline);
    nlohmann::json call_on(const std::string &object_id, const char *function, const nlohmann::json &args,
                           Clock::time_point deadline);
    struct Point {
        double x, y;
    };
    Point wait_actionable(const std::string &object_id, bool need_enabled, bool hit_test, const std::string &api,
                          Clock::time_point deadline);
    void mouse(const std::string &type, double x, double y, const std::string &button, int click_count, int modifiers,
               Clock::time_point deadline);
    void key_event(bool down, const KeyDefinition &key, int modifiers, bool with_text, Clock::time_point deadline);
    void press_keys(const std::string &combination, const std::string &api, Clock::time_point deadline);
    Clock::time_point navigation_deadline(Clock::time_point deadline) const;

    // Observation (browser_observe.cpp).
    void observe(StepResult &result, const StepRequest &request);
    void observe_once(StepResult &result, const StepRequest &request);
    nlohmann::json evaluate(const std::string &expression, bool await_promise, Clock::time_point deadline);

    EnvOptions options_;
    std::unique_ptr<ChromiumProcess> process_;
    std::unique_ptr<CdpConnection> cdp_;
    std::vector<Page> pages_;
    std::set<std::string> closing_targets_;  // closed by tab_close, maybe still listed by Chromium
    size_t active_ = 0;
    double mouse_x_ = 0, mouse_y_ = 0;
    bool needs_restart_ = false;
    double last_start_seconds_ = 0;
    int start_count_ = 0;
};

}  // namespace actionhost::browser
