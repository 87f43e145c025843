#include "eval_task.hpp"

#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

namespace actionhost::browser {
namespace {

using namespace std::chrono_literals;

constexpr const char *kMiniwobPrefix = "browsergym/miniwob.";
constexpr int kEpisodeMaxTimeMs = 1000000;  // browsergym-miniwob's default

// MiniWoB++ keeps its state in page globals; reading one that a page never defined is an error
// there, so each is read defensively.
constexpr const char *kReadInfo =
    "(() => ({raw: typeof WOB_RAW_REWARD_GLOBAL === 'undefined' ? 0 : WOB_RAW_REWARD_GLOBAL,"
    " done: typeof WOB_DONE_GLOBAL === 'undefined' ? false : WOB_DONE_GLOBAL}))()";

class MiniwobTask : public EvalTask {
  public:
    explicit MiniwobTask(std::string url) : url_(std::move(url)) {}

    std::string reset(BrowserEnv &env, Clock::time_point deadline) override {
        StepRequest open;
        open.action_text = "goto(\"" + url_ + "\")";
        ParsedCall call;
        call.name = "goto";
        call.args.emplace_back(url_);
        open.calls = std::vector<ParsedCall>{call};
        open.deadline = deadline;
        StepResult opened = env.step(open);
        if (!opened.last_action_error.empty())
            throw std::runtime_error("could not open the MiniWoB task page " + url_ + ": " + opened.last_action_error);
        if (env.evaluate_on_active_page("typeof core === 'object' && typeof core.startEpisodeReal === 'function'", deadline) != true)
            throw std::runtime_error("the page " + url_ + " is not a MiniWoB++ task (no core.startEpisodeReal); check MINIWOB_URL");
        env.evaluate_on_active_page("core.EPISODE_MAX_TIME = " + std::to_string(kEpisodeMaxTimeMs) + "; core.startEpisodeReal(); true",
                                    deadline);
        // The task marks itself ready once its episode is set up (often after a timer).
        for (int i = 0;; ++i) {
            if (env.evaluate_on_active_page("typeof WOB_TASK_READY !== 'undefined' && WOB_TASK_READY === true", deadline) == true) break;
            if (Clock::now() + 50ms >= deadline || i > 2000) throw std::runtime_error("the MiniWoB task never became ready");
            std::this_thread::sleep_for(50ms);
        }
        auto utterance = env.evaluate_on_active_page("core.getUtterance()", deadline);
        if (utterance.is_object() && utterance.contains("utterance") && utterance["utterance"].is_string())
            return utterance["utterance"].get<std::string>();
        if (utterance.is_string()) return utterance.get<std::string>();
        throw std::runtime_error("core.getUtterance() returned no text");
    }

    double reward(BrowserEnv &env, Clock::time_point deadline) override {
        // A step that left the task page ends the episode with nothing (browsergym-miniwob's rule).
        if (env.active_page_url(deadline) != url_) return 0.0;
        auto info = env.evaluate_on_active_page(kReadInfo, deadline);
        double raw = info.contains("raw") && info["raw"].is_number() ? info["raw"].get<double>() : 0.0;
        return raw > 0 ? 1.0 : 0.0;
    }

  private:
    std::string url_;
};

}  // namespace

common::Result<std::unique_ptr<EvalTask>> make_eval_task(const std::string &env_id, const std::string &miniwob_url) {
    if (env_id.rfind(kMiniwobPrefix, 0) == 0 && env_id.size() > std::string(kMiniwobPrefix).size()) {
        if (miniwob_url.empty())
            return common::fail("Please provide a Miniwob base URL (or setup one using the environment variable MINIWOB_URL).");
        return std::unique_ptr<EvalTask>(
            std::make_unique<MiniwobTask>(miniwob_url + env_id.substr(std::string(kMiniwobPrefix).size()) + ".html"));
    }
    if (env_id.find("webarena") != std::string::npos)
        return common::fail("Unsupported browsergym eval env: " + env_id +
                            " (WebArena tasks need their Python evaluators; actionhost runs MiniWoB++ tasks only)");
    return common::fail("Unsupported browsergym eval env: " + env_id);
}

std::string rewards_json(const std::vector<double> &rewards) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < rewards.size(); ++i) {
        if (i != 0) out << ", ";
        double r = rewards[i];
        // Python prints whole floats with one decimal ("1.0"); rewards here are 0 or 1.
        if (std::floor(r) == r && std::fabs(r) < 1e15) out << static_cast<long long>(r) << ".0";
        else out << r;
    }
    out << ']';
    return out.str();
}

}  // namespace actionhost::browser
