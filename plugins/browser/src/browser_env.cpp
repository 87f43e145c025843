#include "browser_env.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include "action_error.hpp"

namespace actionhost::browser {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

BrowserEnv::BrowserEnv(EnvOptions options) : options_(std::move(options)) {}

BrowserEnv::~BrowserEnv() { stop(); }

void BrowserEnv::shutdown() { stop(); }

void BrowserEnv::stop() {
    if (cdp_) cdp_->close();
    if (process_) process_->stop();
    cdp_.reset();
    process_.reset();
    pages_.clear();
    active_ = 0;
}

bool BrowserEnv::running() { return process_ && process_->running() && cdp_ && cdp_->alive(); }

std::vector<pid_t> BrowserEnv::browser_pids() const { return process_ ? process_->group_pids() : std::vector<pid_t>{}; }

nlohmann::json BrowserEnv::cdp(const std::string &method, const nlohmann::json &params, const std::string &session,
                               Clock::time_point deadline) {
    if (!cdp_) throw CdpClosed("the browser is not running");
    return cdp_->call(method, params, session, deadline);
}

void BrowserEnv::ensure_started(Clock::time_point deadline) {
    if (!needs_restart_ && running()) return;
    stop();
    needs_restart_ = false;
    start(deadline);
}

// A directory the browser writes (its downloads): the browser's user's when it runs as another user.
// Opened without following a link (the workspace is the agent's), then changed through the descriptor.
void BrowserEnv::give_to_browser_user(const std::string &dir) const {
    if (!options_.user) return;
    common::io::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd) (void)!::fchown(fd.get(), options_.user->uid, options_.user->gid);
}

void BrowserEnv::start(Clock::time_point deadline) {
    const auto t0 = Clock::now();
    try {
        ChromiumOptions co;
        co.executable = find_chromium(options_.chromium_path);
        co.width = options_.width;
        co.height = options_.height;
        co.extra_args = options_.extra_args;
        auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        co.start_timeout = std::max(1000ms, std::min(options_.start_timeout, remaining));
        co.user = options_.user;
        co.env = options_.env;
        StartedChromium started = start_chromium(co, std::min(deadline, Clock::now() + co.start_timeout));
        process_ = std::move(started.process);
        cdp_ = std::move(started.cdp);
        if (!started.note.empty() && options_.note) options_.note(started.note);
        if (!options_.downloads_dir.empty()) {
            std::error_code ec;
            fs::create_directories(options_.downloads_dir, ec);
            give_to_browser_user(options_.downloads_dir);
            cdp("Browser.setDownloadBehavior",
                {{"behavior", "allowAndName"}, {"downloadPath", options_.downloads_dir}, {"eventsEnabled", true}}, "",
                deadline);
        }
        cdp("Target.setDiscoverTargets", {{"discover", true}}, "", deadline);
        reconcile_pages(deadline);
    } catch (const StepFailure &) {
        stop();
        throw;
    } catch (const std::exception &e) {
        stop();
        throw StepFailure(std::string("Failed to start the browser: ") + e.what());
    }
    last_start_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
    ++start_count_;
}

BrowserEnv::Page BrowserEnv::attach(const std::string &target_id, Clock::time_point deadline) {
    auto res = cdp("Target.attachToTarget", {{"targetId", target_id}, {"flatten", true}}, "", deadline);
    Page page{target_id, res.value("sessionId", "")};
    const auto &s = page.session_id;
    cdp("Page.enable", nlohmann::json::object(), s, deadline);
    cdp("Page.setLifecycleEventsEnabled", {{"enabled", true}}, s, deadline);
    // BrowserGym's viewport; focus emulation keeps document focus (and :focus) in a headless tab.
    cdp("Emulation.setDeviceMetricsOverride",
        {{"width", options_.width}, {"height", options_.height}, {"deviceScaleFactor", 1}, {"mobile", false}}, s, deadline);
    cdp("Emulation.setFocusEmulationEnabled", {{"enabled", true}}, s, deadline);
    return page;
}

void BrowserEnv::reconcile_pages(Clock::time_point deadline) {
    auto infos = cdp("Target.getTargets", nlohmann::json::object(), "", deadline).value("targetInfos", nlohmann::json::array());
    std::vector<std::string> live;
    for (const auto &t : infos) {
        const std::string id = t.value("targetId", "");
        if (t.value("type", "") == "page" && closing_targets_.count(id) == 0) live.push_back(id);
    }
    // A closed target is forgotten once Chromium stops listing it.
    for (auto it = closing_targets_.begin(); it != closing_targets_.end();) {
        const bool listed = std::any_of(infos.begin(), infos.end(), [&](const nlohmann::json &t) { return t.value("targetId", "") == *it; });
        it = listed ? std::next(it) : closing_targets_.erase(it);
    }
    // Closed pages leave the list; the page opened before the active one becomes active.
    for (size_t i = pages_.size(); i-- > 0;) {
        if (std::find(live.begin(), live.end(), pages_[i].target_id) != live.end()) continue;
        pages_.erase(pages_.begin() + static_cast<long>(i));
        if (active_ >= i && active_ > 0) --active_;
    }
    // New pages (popups, window.open, target=_blank) join in discovery order and become active, as
    // BrowserGym's "last page that reported activity" would be.
    for (const auto &id : live) {
        bool known = false;
        for (const auto &p : pages_)
            if (p.target_id == id) known = true;
        if (known) continue;
        try {
            // Bounded: a target that is going away may never answer the attach.
            pages_.push_back(attach(id, std::min(deadline, Clock::now() + std::chrono::seconds(5))));
            active_ = pages_.size() - 1;
        } catch (const CdpError &) {
            // The target went away between listing and attaching.
        } catch (const CdpTimeout &) {
        }
    }
    if (pages_.empty()) {
        auto created = cdp("Target.createTarget", {{"url", "about:blank"}}, "", deadline);
        pages_.push_back(attach(created.value("targetId", ""), deadline));
        active_ = 0;
    }
    if (active_ >= pages_.size()) active_ = pages_.size() - 1;
}

BrowserEnv::Page &BrowserEnv::active() { return pages_.at(active_); }

Clock::time_point BrowserEnv::navigation_deadline(Clock::time_point deadline) const {
    // Navigation may use the step's budget minus a reserve for building the observation afterwards,
    // and never more than Playwright's 100 s context timeout that BrowserGym runs with.
    auto now = Clock::now();
    auto remaining = deadline - now;
    auto reserve = std::max<Clock::duration>(1000ms, remaining / 5);
    auto budget = std::clamp<Clock::duration>(remaining - reserve, 300ms, 100000ms);
    return now + budget;
}

void BrowserEnv::settle(uint64_t step_mark, bool interacted, Clock::time_point deadline) {
    if (!interacted) return;
    const std::string session = active().session_id;
    const std::string frame = active().target_id;  // a page target's main frame id is its target id
    // Chromium acks a mouse-up the page has no mouse-up listener for without waiting for its main thread,
    // so the click it turns into may still be queued: a script that waits two animation frames runs
    // after it (a click seen in the observation under heavy load, not just usually).
    try {
        evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))", true,
                 std::min(deadline, Clock::now() + 1000ms));
    } catch (const std::exception &) {  // navigating away, or a page too busy: the sleep below still applies
    }
    // An input event may schedule a navigation (form submit, link) a task or two later.
    std::this_thread::sleep_for(60ms);
    auto is_frame_event = [&](const CdpEvent &e, const char *method) {
        return e.session_id == session && e.method == method && e.params.value("frameId", "") == frame;
    };
    auto started = cdp_->events_since(step_mark, [&](const CdpEvent &e) { return is_frame_event(e, "Page.frameStartedLoading"); });
    if (started.empty()) return;
    uint64_t last_start = started.back().seq;
    auto stopped = cdp_->events_since(last_start, [&](const CdpEvent &e) { return is_frame_event(e, "Page.frameStoppedLoading"); });
    if (!stopped.empty()) return;
    // BrowserGym waits for domcontentloaded with a 3 s limit per page; wait for the load to stop.
    auto limit = std::min(Clock::now() + 3000ms, navigation_deadline(deadline));
    cdp_->wait_event(last_start, [&](const CdpEvent &e) {
        return is_frame_event(e, "Page.frameStoppedLoading") ||
               (e.session_id == session && e.method == "Page.lifecycleEvent" && e.params.value("name", "") == "DOMContentLoaded" &&
                e.params.value("frameId", "") == frame);
    }, limit);
}

std::optional<DownloadResult> BrowserEnv::collect_download(uint64_t step_mark, Clock::time_point deadline) {
    auto is_begin = [](const CdpEvent &e) { return e.method == "Browser.downloadWillBegin"; };
    auto begun = cdp_->events_since(step_mark, is_begin);
    if (begun.empty()) {
        // A navigation that started but never committed may be a download whose event is on its way.
        const std::string session = active().session_id;
        auto started = cdp_->events_since(step_mark, [&](const CdpEvent &e) {
            return e.session_id == session && e.method == "Page.frameRequestedNavigation";
        });
        auto committed = cdp_->events_since(step_mark, [&](const CdpEvent &e) {
            return e.session_id == session && e.method == "Page.frameNavigated";
        });
        if (started.empty() || !committed.empty()) return std::nullopt;
        if (!cdp_->wait_event(step_mark, is_begin, std::min(navigation_deadline(deadline), Clock::now() + 500ms)))
            return std::nullopt;
        begun = cdp_->events_since(step_mark, is_begin);
    }
    const auto &first = begun.front();
    std::string guid = first.params.value("guid", "");
    auto done = [&](const CdpEvent &e) {
        if (e.method != "Browser.downloadProgress" || e.params.value("guid", "") != guid) return false;
        std::string state = e.params.value("state", "");
        return state == "completed" || state == "canceled";
    };
    auto ev = cdp_->wait_event(first.seq, done, navigation_deadline(deadline));
    if (!ev || ev->params.value("state", "") != "completed") return std::nullopt;
    // The name of a file the host (root) opens next: whatever sent it, it names nothing but a file of the
    // downloads directory (Chromium's guids are 36 characters of hex digits and dashes).
    if (guid.empty() || guid.size() > 64 ||
        guid.find_first_not_of("0123456789abcdefABCDEF-") != std::string::npos)
        throw StepFailure("the browser reported a download with an unusable name: refused");
    DownloadResult d;
    d.dir = options_.downloads_dir;
    d.name = guid;
    d.suggested_filename = first.params.value("suggestedFilename", "");
    return d;
}

StepResult BrowserEnv::step(const StepRequest &request) {
    StepResult result;
    result.last_action = request.action_text;
    ensure_started(request.deadline);
    try {
        reconcile_pages(request.deadline);
        const uint64_t step_mark = cdp_->mark();
        std::vector<ParsedCall> calls;
        if (request.calls) {
            calls = *request.calls;
        } else {
            auto parsed = parse_actions(request.action_text);
            if (parsed) calls = std::move(parsed).value();
            else result.last_action_error = parsed.error().message;
        }
        // BrowserGym checks every name before running anything.
        for (const auto &c : calls) {
            if (!is_known_action(c.name)) {
                result.last_action_error = "NameError: Invalid action type '" + c.name + "'.";
                calls.clear();
                break;
            }
        }
        bool interacted = false;
        for (const auto &c : calls) {
            auto bound = bind_call(c);
            if (!bound) {
                result.last_action_error = bound.error().message;
                break;
            }
            // Input can schedule a navigation a task later (links, submits, change handlers);
            // navigation calls wait for their own load and need no grace period.
            static const std::set<std::string> kInputActions = {"click", "dblclick", "press", "select_option", "fill",
                                                                "clear", "drag_and_drop", "upload_file", "hover", "focus"};
            if (kInputActions.count(c.name) != 0) interacted = true;
            try {
                run_action(bound.value(), request);
            } catch (const ActionError &e) {
                result.last_action_error = e.what();
                break;
            } catch (const CdpTimeout &) {
                if (Clock::now() >= request.deadline) throw;
                result.last_action_error = "TimeoutError: " + c.name + ": the browser did not answer in time";
                break;
            } catch (const CdpError &e) {
                result.last_action_error = std::string("Error: ") + e.what();
                break;
            }
        }
        settle(step_mark, interacted, request.deadline);
        result.download = collect_download(step_mark, request.deadline);
        if (result.download) return result;
        reconcile_pages(request.deadline);
        observe(result, request);
        cdp("Runtime.releaseObjectGroup", {{"objectGroup", "actionhost"}}, active().session_id, request.deadline);
    } catch (const CdpTimeout &) {
        needs_restart_ = true;  // a renderer that stopped answering is replaced on the next step
        throw StepFailure("TimeoutError: Browser environment took too long to respond.");
    } catch (const CdpClosed &e) {
        needs_restart_ = true;
        throw StepFailure(std::string("Browser connection lost: ") + e.what());
    }
    return result;
}

}  // namespace actionhost::browser
