#include "actions/policy_stage.hpp"

#include <actionhost/common/json_io.hpp>
#include <algorithm>
#include <cstdlib>
#include <actionhost/common/observation.hpp>

#include "actions/router.hpp"
#include "http/stream_hub.hpp"
#include "modules/host_environment.hpp"

namespace actionhost::host {
namespace {

const char *const kKeys[] = {"security.deny_commands", "security.deny_paths", "security.policy_modules",
                             "security.confirmation_mode"};

bool truthy(const char *v) {
    if (v == nullptr) return false;
    const std::string s(v);
    return s == "1" || s == "true" || s == "True" || s == "yes";
}

common::Result<long> positive(const char *v, const std::string &key, long fallback) {
    if (v == nullptr || *v == '\0') return fallback;
    char *end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || *end != '\0' || n <= 0) return common::fail(key + " must be a positive integer, got: " + v);
    return n;
}

// security.policy_modules: a JSON list of names, or names separated by commas.
std::vector<std::string> names_of(const char *v) {
    std::vector<std::string> out;
    if (v == nullptr) return out;
    const auto j = nlohmann::json::parse(v, nullptr, false);
    if (j.is_array()) {
        for (const auto &e : j)
            if (e.is_string()) out.push_back(e.get<std::string>());
        return out;
    }
    std::string cur;
    for (const char *p = v;; ++p) {
        if (*p == ',' || *p == '\0') {
            while (!cur.empty() && cur.back() == ' ') cur.pop_back();
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
            if (*p == '\0') break;
        } else if (!(cur.empty() && *p == ' ')) {
            cur += *p;
        }
    }
    return out;
}

std::string who(const PolicyDecision &d) {
    std::string s = d.rule.empty() ? "" : "rule " + d.rule + " of ";
    return s + "module " + d.module;
}

// An answer of the stage's own that refuses the action (counted as outcome "denied" in /metrics).
RouteResult denied(RouteResult r) {
    r.denied_by_policy = true;
    return r;
}

}  // namespace

PolicyStage::~PolicyStage() { stop(); }

common::Result<std::unique_ptr<PolicyStage>> PolicyStage::create(HostEnvironment &env, const modules::ModuleRegistry &registry,
                                                                  StreamHub &streams) {
    bool any = false;
    for (const char *k : kKeys) {
        const char *v = env.config_get(k);
        any = any || (v != nullptr && *v != '\0' && std::string(v) != "false" && std::string(v) != "[]");
    }
    if (!any) return std::unique_ptr<PolicyStage>();
    std::unique_ptr<PolicyStage> stage(new PolicyStage(env, streams));
    auto rules = RulesPolicy::from_config([&env](const std::string &k) { return env.config_get(k); });
    if (!rules) return rules.as_failure();
    stage->rules_ = std::move(rules).value();
    stage->confirmation_mode_ = truthy(env.config_get("security.confirmation_mode"));
    if (const char *r = env.config_get("security.confirm_risk"); r != nullptr && *r != '\0') {
        const auto risk = parse_risk(r);
        if (!risk) return common::fail(std::string("security.confirm_risk must be LOW, MEDIUM or HIGH, got: ") + r);
        stage->confirm_risk_ = *risk;
    }
    auto wait_s = positive(env.config_get("security.confirmation_timeout_s"), "security.confirmation_timeout_s", 300);
    if (!wait_s) return wait_s.as_failure();
    stage->confirmation_timeout_ = std::chrono::seconds(wait_s.value());
    auto timeout_ms = positive(env.config_get("security.policy_timeout_ms"), "security.policy_timeout_ms", 2000);
    if (!timeout_ms) return timeout_ms.as_failure();

    const std::vector<std::string> names = names_of(env.config_get("security.policy_modules"));
    if (!names.empty()) {
        nlohmann::json manifests = nlohmann::json::array();
        for (const auto &n : names) {
            const modules::Manifest *m = registry.find(n);
            if (m == nullptr) return common::fail("security.policy_modules names '" + n + "', which is not an installed plugin");
            if (!m->policy) return common::fail("security.policy_modules names '" + n + "', whose manifest does not say provides.policy");
            manifests.push_back(m->dir + "/manifest.json");
        }
        const auto &f = env.facts();
        PolicyWorker::Settings s;
        s.program = f.install_dir + "/bin/actionhost";
        s.module_names = names;
        s.init = {{"manifests", manifests},
                  {"facts", env.facts_for_worker()},
                  {"settings", env.settings_for_policy_worker()}};
        s.timeout = std::chrono::milliseconds(timeout_ms.value());
        s.log = [&env](ah_log_level_t level, const std::string &m) { env.log(level, "policy", m); };
        stage->worker_ = std::make_unique<PolicyWorker>(std::move(s));
        if (auto started = stage->worker_->start(); !started) return started.as_failure();
    }
    env.log(AH_LOG_INFO, "policy",
            "policy stage on: rules" + std::string(stage->rules_.empty() ? " (none)" : "") +
                (names.empty() ? "" : ", modules " + common::dump_json(names)) +
                (stage->confirmation_mode_ ? std::string(", confirmation at ") + to_string(stage->confirm_risk_) + " and above" : ""));
    return stage;
}

void PolicyStage::record(const PolicyCheck &c, const PolicyDecision &d) {
    // The host log has them all, allowed ones at debug level (one per action); the router puts the
    // decision in the action's audit record (host/audit/audit_recorder.hpp) through `c.decided`.
    env_.log(d.verdict == PolicyVerdict::Allow && d.confirmation.empty() ? AH_LOG_DEBUG : AH_LOG_INFO, "policy",
             "decision " + common::dump_json(to_json(d)));
    if (c.decided != nullptr) *c.decided = d;
}

std::optional<RouteResult> PolicyStage::check(const PolicyCheck &c) {
    PolicyDecision final;
    final.action = c.action;
    final.session = c.session;
    final.module = "host";
    // The action's own risk (OpenHands' security_risk, set by the agent) can raise the risk, never lower
    // what a module says.
    if (const auto sr = c.args.find("security_risk"); sr != c.args.end() && sr->is_number_integer())
        final.risk = static_cast<Risk>(std::clamp(sr->get<int>(), -1, 2));
    auto deny = [&](PolicyDecision d) -> std::optional<RouteResult> {
        d.session = c.session;
        record(c, d);
        return denied(RouteResult{200, common::error_observation("The action was denied by policy: " + who(d) +
                                                                 (d.reason.empty() ? "" : ": " + d.reason) + ". It was not run.")});
    };
    PolicyDecision rules = rules_.check(c.action, c.args, c.cwd);
    if (rules.verdict == PolicyVerdict::Deny) return deny(std::move(rules));
    bool ask = false;
    if (worker_) {
        nlohmann::json envelope = {{"action", c.action}, {"args", c.args}};
        for (auto &d : worker_->ask({common::dump_json(envelope), c.action, c.session, c.cwd, c.request_id})) {
            if (d.verdict == PolicyVerdict::Deny) return deny(std::move(d));
            final.risk = std::max(final.risk, d.risk);  // Unknown is the lowest value
            if (d.verdict == PolicyVerdict::Confirm) {
                ask = true;
                final.module = d.module;
                final.rule = d.rule;
                final.reason = d.reason;
            }
        }
    }
    // OpenHands' confirmation_state "rejected" on the action: refused as its client does locally. A
    // "confirmed" one is not taken as confirmation: the field travels inside the action, which the agent
    // writes (docs/security.md, "Policy").
    if (const auto cs = c.args.find("confirmation_state"); cs != c.args.end() && cs->is_string() && *cs == "rejected") {
        final.verdict = PolicyVerdict::Deny;
        final.confirmation = "rejected";
        final.reason = "the action came with confirmation_state rejected";
        record(c, final);
        return denied(RouteResult{200, {{"observation", "user_rejected"},
                                        {"content", "Action has been rejected by the user! Waiting for further user input."},
                                        {"extras", nlohmann::json::object()}}});
    }
    // Unknown risk counts as at or above any threshold: confirmation mode without a risk estimate asks for
    // every action, as OpenHands' does.
    if (confirmation_mode_ && (final.risk == Risk::Unknown || final.risk >= confirm_risk_)) {
        ask = true;
        if (final.reason.empty()) {
            final.module = "rules";
            final.rule = "confirmation_mode";
            final.reason = std::string("risk ") + to_string(final.risk) + " is at or above confirm_risk " + to_string(confirm_risk_);
        }
    }
    if (!ask || c.interrupt) {
        final.verdict = PolicyVerdict::Allow;
        record(c, final);
        return std::nullopt;
    }
    final.verdict = PolicyVerdict::Confirm;
    Confirmations::Pending p;
    p.session = c.session;
    p.action = {{"action", c.action}, {"args", c.args}};
    p.decision = final;
    const auto outcome = confirmations_.wait(std::move(p), confirmation_timeout_, [&](const Confirmations::Pending &pending) {
        env_.log(AH_LOG_INFO, "policy", "action " + pending.id + " (" + c.action + ", session '" + c.session +
                                            "') waits for confirmation: POST /actions/" + pending.id + "/confirm");
        if (streams_.has_followers(c.session))
            streams_.publish(c.session, "action_pending",
                             common::dump_json({{"id", pending.id}, {"action", pending.action}, {"risk", to_string(final.risk)},
                                                {"reason", final.reason}}));
    });
    switch (outcome) {
    case Confirmations::Outcome::Confirmed:
        final.confirmation = "confirmed";
        final.verdict = PolicyVerdict::Allow;
        record(c, final);
        return std::nullopt;
    case Confirmations::Outcome::Rejected:
        final.confirmation = "rejected";
        final.verdict = PolicyVerdict::Deny;
        record(c, final);
        return denied(RouteResult{200, {{"observation", "user_rejected"},
                                        {"content", "Action has been rejected by the user! Waiting for further user input."},
                                        {"extras", nlohmann::json::object()}}});
    case Confirmations::Outcome::TimedOut:
        final.confirmation = "timed_out";
        final.verdict = PolicyVerdict::Deny;
        record(c, final);
        return denied(RouteResult{200, common::error_observation(
                                           "The action waited " + std::to_string(confirmation_timeout_.count() / 1000) +
                                           " s for the client's confirmation (security.confirmation_timeout_s) and was not run.")});
    case Confirmations::Outcome::Stopped: break;
    }
    final.verdict = PolicyVerdict::Deny;
    final.reason = "the host stopped while the action waited for confirmation";
    record(c, final);
    return RouteResult{503, {{"detail", "The runtime is shutting down"}}};
}

}  // namespace actionhost::host
