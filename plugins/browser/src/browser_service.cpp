#include "browser_service.hpp"

#include <Poco/Base64Decoder.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/time.h>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/process/shell_identity.hpp"
#include "actionhost/common/observation.hpp"
#include "observation_builder.hpp"
#include "workspace_files.hpp"

namespace actionhost::browser {
namespace fs = std::filesystem;

namespace {

constexpr int kStartTimeoutSeconds = 60;
constexpr const char *kDisabled = "Browser functionality is not supported or disabled.";

std::string error_json(const std::string &text) { return common::dump_json(common::error_observation(text)); }

// screenshot_<YYYYmmdd_HHMMSS_micro>.png, as Python's strftime('%Y%m%d_%H%M%S_%f') in local time.
std::string timestamp_name() {
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    std::tm tm{};
    ::localtime_r(&tv.tv_sec, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y%m%d_%H%M%S", &tm);
    char out[96];
    std::snprintf(out, sizeof out, "screenshot_%s_%06ld.png", buf, static_cast<long>(tv.tv_usec));
    return out;
}

// The extension puremagic would guess for the common downloads (from the first bytes of `file`), else
// the suggested name's.
std::string guess_extension(int file, const std::string &suggested) {
    char head[16] = {};
    const ssize_t n = ::pread(file, head, sizeof head, 0);
    std::string h(head, n > 0 ? static_cast<size_t>(n) : 0);
    auto starts = [&](const std::string &magic) { return h.compare(0, magic.size(), magic) == 0; };
    if (starts("%PDF")) return ".pdf";
    if (starts("\x89PNG")) return ".png";
    if (starts("\xFF\xD8\xFF")) return ".jpg";
    if (starts("GIF8")) return ".gif";
    if (starts("PK\x03\x04")) return ".zip";
    if (starts("\x1F\x8B")) return ".gz";
    std::string ext = fs::path(suggested).extension().string();
    return ext.size() <= 16 && ext.find_first_of(std::string("/\0", 2)) == std::string::npos ? ext : "";
}

}  // namespace

BrowserService::BrowserService(ServiceOptions options) : options_(std::move(options)) {
    EnvOptions eo;
    eo.chromium_path = options_.chromium_path;
    eo.downloads_dir = options_.working_dir + "/.downloads";
    // The agent's identity, as its shells have it: the browser can then do no more than the agent's own
    // commands (file:// URLs, downloads), and holds nothing the agent may not read.
    const common::ShellIdentity who = common::resolve_shell_identity(options_.username);
    if (who.switch_user) eo.user = common::UserSwitch{who.uid, who.gid, who.groups};
    file_owner_ = eo.user;
    eo.env = who.env;
    eo.note = options_.log;
    env_ = std::make_unique<BrowserEnv>(eo);
    if (!options_.eval_env.empty()) {
        auto task = make_eval_task(options_.eval_env, options_.miniwob_url);
        if (task) eval_task_ = std::move(task).value();
        else eval_error_ = task.error().message;
    }
}

BrowserService::~BrowserService() { shutdown(); }

void BrowserService::shutdown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (env_) env_->shutdown();
}

std::vector<pid_t> BrowserService::browser_pids() {
    std::lock_guard<std::mutex> lock(mu_);
    return env_->browser_pids();
}

double BrowserService::last_start_seconds() {
    std::lock_guard<std::mutex> lock(mu_);
    return env_->last_start_seconds();
}

common::Status BrowserService::start_now() {
    if (!options_.browser_enabled) return common::ok();
    std::lock_guard<std::mutex> lock(mu_);
    try {
        env_->ensure_started(Clock::now() + std::chrono::seconds(60));
        return common::ok();
    } catch (const std::exception &e) {
        return common::fail(e.what());
    }
}

std::string BrowserService::execute(const std::string &action_json, const std::string &cwd) {
    auto parsed = common::parse_json(action_json);
    if (!parsed || !parsed.value().is_object()) return error_json("Invalid action: " + (parsed ? std::string() : parsed.error().message));
    const auto &env = parsed.value();
    std::string action = env.value("action", "");
    if (action != "browse" && action != "browse_interactive")
        return error_json("The browser plugin does not handle the action '" + action + "'.");
    if (!options_.browser_enabled) return error_json(kDisabled);
    nlohmann::json args = env.contains("args") && env["args"].is_object() ? env["args"] : nlohmann::json::object();
    double timeout_s = options_.default_timeout_s;
    if (env.contains("timeout") && env["timeout"].is_number() && env["timeout"].get<double>() > 0)
        timeout_s = env["timeout"].get<double>();
    if (action == "browse" && !(args.contains("url") && args["url"].is_string()))
        return error_json("Invalid browse action: args.url must be a string.");
    if (action == "browse_interactive" && !(args.contains("browser_actions") && args["browser_actions"].is_string()))
        return error_json("Invalid browse_interactive action: args.browser_actions must be a string.");
    if (action == "browse_interactive") {
        std::string code = args["browser_actions"].get<std::string>();
        const auto first = code.find_first_not_of(" \t\r\n");
        const auto last = code.find_last_not_of(" \t\r\n");
        code = first == std::string::npos ? "" : code.substr(first, last - first + 1);
        if (code == "GET_EVAL_GOAL" || code == "GET_EVAL_REWARDS") return eval_answer(code);
    }
    try {
        return step_to_observation(action, args, timeout_s, cwd);
    } catch (const std::exception &e) {
        return error_json(std::string("Browser error: ") + e.what());
    }
}

common::Status BrowserService::ensure_episode(Clock::time_point deadline) {
    if (options_.eval_env.empty()) return common::ok();
    if (!eval_task_) return common::fail(eval_error_);
    env_->ensure_started(deadline);
    if (episode_browser_start_ == env_->start_count()) return common::ok();
    // A new browser (first use or a restart) starts a new episode, as OpenHands resets its env.
    eval_goal_ = eval_task_->reset(*env_, deadline);
    episode_browser_start_ = env_->start_count();
    return common::ok();
}

std::string BrowserService::eval_answer(const std::string &request) {
    std::lock_guard<std::mutex> lock(mu_);
    if (options_.eval_env.empty())
        return error_json(request + " needs an evaluation environment: start the host with --browsergym-eval-env.");
    BrowseObservation obs;
    obs.trigger_by_action = "browse_interactive";
    try {
        if (auto episode = ensure_episode(Clock::now() + std::chrono::seconds(kStartTimeoutSeconds)); !episode)
            throw std::runtime_error(episode.error().message);
        obs.raw_content = request == "GET_EVAL_GOAL" ? eval_goal_ : rewards_json(eval_rewards_);
    } catch (const std::exception &e) {
        obs.error = true;
        obs.last_browser_action_error = e.what();
        obs.raw_content = e.what();
    }
    return browse_observation_json(obs, false);
}

std::string BrowserService::save_screenshot(const std::string &b64) {
    if (b64.empty()) return "";
    std::istringstream in(b64);
    Poco::Base64Decoder decoder(in);
    std::ostringstream png;
    png << decoder.rdbuf();
    // Best effort, as OpenHands: an observation without a saved path if the directory is not usable.
    auto saved = write_workspace_file(options_.working_dir + "/.browser_screenshots", timestamp_name(), png.str(), file_owner_);
    return saved ? saved.value() : "";
}

std::string BrowserService::take_download(const DownloadResult &d) {
    // The downloads directory is in the agent's workspace: the file is opened once, through no link, and
    // everything after reads that descriptor.
    auto source = open_own_file(d.dir, d.name);
    if (!source) throw std::runtime_error(source.error().message);
    downloaded_files_.push_back(d.name);
    const std::string ext = guess_extension(source.value().get(), d.suggested_filename);
    auto copied = copy_into_workspace(source.value().get(), d.dir + "/" + d.name, options_.working_dir,
                                      "file_" + std::to_string(downloaded_files_.size()) + ext, file_owner_);
    if (!copied) throw std::runtime_error(copied.error().message);
    return copied.value();
}

std::string BrowserService::step_to_observation(const std::string &action, const nlohmann::json &args, double timeout_s,
                                                const std::string &cwd) {
    std::lock_guard<std::mutex> lock(mu_);
    BrowseObservation obs;
    obs.trigger_by_action = action;
    // Starting the browser has its own budget (OpenHands initialises it apart from any action); the
    // action's timeout covers the step itself.
    try {
        const auto start_deadline = Clock::now() + std::chrono::seconds(kStartTimeoutSeconds);
        env_->ensure_started(start_deadline);
        if (auto episode = ensure_episode(start_deadline); !episode) throw std::runtime_error(episode.error().message);
    } catch (const std::exception &e) {
        obs.error = true;
        obs.last_browser_action_error = e.what();
        obs.url = action == "browse" && args.contains("url") ? args["url"].get<std::string>() : "";
        obs.text_content = e.what();
        obs.axtree_object = nlohmann::json::object();
        return browse_observation_json(obs, args.value("return_axtree", false));
    }
    StepRequest req;
    req.deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    req.cwd = cwd.empty() ? options_.working_dir : cwd;
    req.want_text_content = action == "browse";
    const bool return_axtree = args.value("return_axtree", false);
    req.want_objects = return_axtree;
    std::string asked_url;
    if (action == "browse") {
        asked_url = args["url"].get<std::string>();
        // OpenHands prefixes a non-http URL with the server's cwd; we make such input a real URL:
        // anything with a scheme is used as is, a path becomes a file:// URL.
        if (asked_url.rfind("http", 0) != 0 && asked_url.find(':') == std::string::npos) {
            fs::path p = asked_url;
            if (p.is_relative()) p = fs::path(req.cwd) / p;
            asked_url = "file://" + p.lexically_normal().string();
        }
        req.action_text = "goto(\"" + asked_url + "\")";
        ParsedCall call;
        call.name = "goto";
        call.args.emplace_back(asked_url);
        req.calls = std::vector<ParsedCall>{call};
    } else {
        req.action_text = args["browser_actions"].get<std::string>();
    }

    StepResult result;
    try {
        result = env_->step(req);
    } catch (const std::exception &e) {
        // As OpenHands' browse() when the environment raises: error set, no page data.
        obs.error = true;
        obs.last_browser_action_error = e.what();
        obs.url = action == "browse" ? asked_url : "";
        obs.text_content = e.what();
        obs.screenshot = "";
        obs.active_page_index = -1;
        obs.axtree_object = nlohmann::json::object();
        return browse_observation_json(obs, return_axtree);
    }
    if (eval_task_) {
        // BrowserGym scores every step; a page that cannot be read scores nothing.
        try {
            eval_rewards_.push_back(eval_task_->reward(*env_, req.deadline));
        } catch (const std::exception &) {
            eval_rewards_.push_back(0.0);
        }
    }
    if (result.download) {
        try {
            return download_observation_json(req.action_text, take_download(*result.download));
        } catch (const std::exception &e) {
            return error_json(std::string("The download could not be copied: ") + e.what());
        }
    }
    obs.url = result.url;
    obs.screenshot = result.screenshot_b64.empty() ? "" : "data:image/png;base64," + result.screenshot_b64;
    obs.set_of_marks = result.som_b64.empty() ? "" : "data:image/png;base64," + result.som_b64;
    std::string saved = save_screenshot(result.screenshot_b64);
    if (!saved.empty()) obs.screenshot_path = saved;
    obs.error = !result.last_action_error.empty();
    obs.open_pages_urls = result.open_pages_urls;
    obs.active_page_index = result.active_page_index;
    obs.dom_object = std::move(result.dom_object);
    obs.axtree_object = std::move(result.axtree_object);
    obs.extra_element_properties = std::move(result.extra_element_properties);
    obs.last_browser_action = result.last_action;
    obs.last_browser_action_error = result.last_action_error;
    obs.focused_element_bid = result.focused_element_bid;
    obs.text_content = std::move(result.text_content);
    return browse_observation_json(obs, return_axtree);
}

}  // namespace actionhost::browser
