// The policy stage: asked by the router after an action is validated and before anything of it runs
// (docs/security.md, "Policy"). The built-in rules (security.deny_commands, security.deny_paths), then the
// third-party policy modules (security.policy_modules, in the policy worker), then the confirmation wait
// (security.confirmation_mode). Built only when something is configured: without it the router's check
// is one null pointer test.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <actionhost/common/result.hpp>
#include <actionhost/modules/registry.hpp>
#include <nlohmann/json.hpp>

#include "policy/confirmations.hpp"
#include "policy/policy_decision.hpp"
#include "policy/policy_worker.hpp"
#include "policy/rules_policy.hpp"

namespace actionhost::host {

class HostEnvironment;
class StreamHub;
struct RouteResult;

struct PolicyCheck {
    std::string action;        // the action's type
    const nlohmann::json &args;  // validated, defaults filled
    std::string session, cwd, request_id;
    bool interrupt = false;  // a call passed beside a running one (C-c): never waits for a confirmation
    PolicyDecision *decided = nullptr;  // when set, receives the final decision (the audit trail's record)
};

class PolicyStage {
  public:
    // nullptr when the configuration asks for no policy (no key of [security] set). An error (a bad
    // pattern, an unknown or broken policy module) is the host's refusal to start.
    static common::Result<std::unique_ptr<PolicyStage>> create(HostEnvironment &env, const modules::ModuleRegistry &registry,
                                                               StreamHub &streams);
    ~PolicyStage();

    // Empty: the action may run. Otherwise the answer the client gets instead (a denial, a rejection, a
    // confirmation that timed out), the action not run. Thread: any, concurrently (a confirmation wait
    // blocks only its own request). Every final decision is logged and handed to `c.decided`.
    std::optional<RouteResult> check(const PolicyCheck &c);

    // The confirmation endpoints (http/policy_api.hpp).
    Confirmations &confirmations() { return confirmations_; }
    // The host is stopping: waits end, with 503.
    void stop() { confirmations_.stop(); }

    PolicyWorker *worker() { return worker_.get(); }  // tests

  private:
    PolicyStage(HostEnvironment &env, StreamHub &streams) : env_(env), streams_(streams) {}
    void record(const PolicyCheck &c, const PolicyDecision &d);
    HostEnvironment &env_;
    StreamHub &streams_;
    RulesPolicy rules_;
    std::unique_ptr<PolicyWorker> worker_;
    Confirmations confirmations_;
    bool confirmation_mode_ = false;
    Risk confirm_risk_ = Risk::High;
    std::chrono::milliseconds confirmation_timeout_{std::chrono::seconds(300)};
};

}  // namespace actionhost::host
