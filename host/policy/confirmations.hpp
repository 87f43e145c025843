// Actions waiting for the client's confirmation (security.confirmation_mode): each waits in its request
// until POST /actions/{id}/confirm answers it or security.confirmation_timeout_s passes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "policy/policy_decision.hpp"

namespace actionhost::host {

class Confirmations {
  public:
    enum class Outcome { Confirmed, Rejected, TimedOut, Stopped };
    struct Pending {
        std::string id;
        std::string session;
        nlohmann::json action;  // the normalised envelope, as it would run
        PolicyDecision decision;
        double since = 0;  // seconds since the epoch
    };
    // Registers `p` (its id is assigned here), calls `announce` with it, waits for an answer.
    Outcome wait(Pending p, std::chrono::milliseconds timeout, const std::function<void(const Pending &)> &announce);
    // The client's answer; false when `id` is not waiting (unknown, answered, timed out).
    bool answer(const std::string &id, bool confirm);
    // [{"id","session","action","risk","reason","rule","module","since"}], oldest first.
    nlohmann::json pending_json() const;
    // The host is stopping: every wait ends (Stopped), none starts.
    void stop();

  private:
    struct Slot {
        Pending p;
        std::optional<bool> answer;
    };
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::string, std::shared_ptr<Slot>> slots_;
    uint64_t next_ = 1;
    bool stopped_ = false;
};

}  // namespace actionhost::host
