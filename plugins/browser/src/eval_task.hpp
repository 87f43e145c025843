// BrowserGym evaluation tasks (`--browsergym-eval-env`): the task sets the page up at the start of an
// episode, states the goal, and scores every step. OpenHands answers the special actions
// GET_EVAL_GOAL / GET_EVAL_REWARDS from them.
//
// Supported: `browsergym/miniwob.<task>`, driving MiniWoB++'s page API (core.startEpisodeReal,
// core.getUtterance, WOB_* globals) on `<MINIWOB_URL><task>.html`, as browsergym-miniwob does. WebArena
// and the other suites need their own servers and Python evaluators, which a C++ host cannot run: they
// are refused with a clear message when the first browsing action arrives.
#pragma once

#include <actionhost/common/result.hpp>
#include <memory>
#include <string>

#include "browser_env.hpp"

namespace actionhost::browser {

class EvalTask {
  public:
    virtual ~EvalTask() = default;
    // Opens the task page and starts an episode; returns the goal text. Throws on failure.
    virtual std::string reset(BrowserEnv &env, Clock::time_point deadline) = 0;
    // The reward of the step that just ran (BrowserGym's task.validate).
    virtual double reward(BrowserEnv &env, Clock::time_point deadline) = 0;
};

// The task for `env_id`, or why there is none (unknown suite, missing MINIWOB_URL).
common::Result<std::unique_ptr<EvalTask>> make_eval_task(const std::string &env_id, const std::string &miniwob_url);

// Python's json.dumps of a list of floats: "[0.0, 1.0]".
std::string rewards_json(const std::vector<double> &rewards);

}  // namespace actionhost::browser
