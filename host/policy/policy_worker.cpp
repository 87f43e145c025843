#include "policy/policy_worker.hpp"

#include <signal.h>

#include <actionhost/common/json_io.hpp>

#include "sys/worker_wire.hpp"

namespace actionhost::host {

PolicyWorker::PolicyWorker(Settings settings) : s_(std::move(settings)) {}

PolicyWorker::~PolicyWorker() {
    std::lock_guard lock(mu_);
    if (pid_ > 0) kill_locked("");
}

common::Status PolicyWorker::start() {
    std::lock_guard lock(mu_);
    return spawn_locked();
}

void PolicyWorker::kill_locked(const std::string &why) {
    fd_ = -1;
    if (!ch_.child) return;
    ch_.child->signal_group(SIGKILL);
    const auto status = ch_.child->wait(std::chrono::seconds(10));
    if (!why.empty() && s_.log) {
        s_.log(AH_LOG_ERROR, "the policy worker (pid " + std::to_string(pid_) + ") " + why + "; it " +
                                 (status ? status->describe() : std::string("did not end")) +
                                 " and is started again for the next action");
    }
    ch_ = WorkerChannel{};
    pid_ = -1;
}

common::Status PolicyWorker::spawn_locked() {
    auto spawned = spawn_worker(s_.program, "--policy-worker");
    if (!spawned) return common::fail("cannot start the policy worker: " + spawned.error().message);
    ch_ = std::move(spawned).value();
    pid_ = ch_.child->pid();
    fd_ = ch_.fd.get();
    auto sent = write_frame(fd_, common::dump_json(s_.init));
    auto reply = sent ? read_frame(fd_, std::chrono::steady_clock::now() + s_.start_timeout)
                      : common::Result<std::string>(sent.as_failure());
    std::string why;
    if (!reply) why = reply.error().message == "closed" ? "it ended while loading the modules" : reply.error().message;
    else {
        const auto j = nlohmann::json::parse(reply.value(), nullptr, false);
        if (!j.is_object() || !j.value("ok", false))
            why = j.is_object() ? j.value("error", std::string("no answer")) : "an invalid answer";
    }
    if (!why.empty()) {
        kill_locked("");
        return common::fail("the policy worker could not load the policy modules: " + why);
    }
    return common::ok();
}

PolicyDecision PolicyWorker::failure(const PolicyQuery &q, const std::string &why) const {
    PolicyDecision d;
    d.action = q.action;
    d.session = q.session;
    d.module = "policy worker";
    d.verdict = PolicyVerdict::Deny;
    d.risk = Risk::Unknown;
    d.rule = "";
    for (const auto &n : s_.module_names) d.rule += (d.rule.empty() ? "" : ", ") + n;
    d.reason = why;
    return d;
}

std::vector<PolicyDecision> PolicyWorker::ask(const PolicyQuery &q) {
    std::lock_guard lock(mu_);
    if (pid_ <= 0) {
        if (auto started = spawn_locked(); !started) return {failure(q, started.error().message)};
    }
    const nlohmann::json req = {{"action_json", q.action_json}, {"action", q.action}, {"session", q.session},
                                {"cwd", q.cwd}, {"request_id", q.request_id}};
    auto sent = write_frame(fd_, common::dump_json(req));
    if (!sent) {
        kill_locked("could not be asked (" + sent.error().message + ")");
        return {failure(q, "the policy worker could not be asked: " + sent.error().message)};
    }
    auto reply = read_frame(fd_, std::chrono::steady_clock::now() + s_.timeout);
    if (!reply) {
        const bool timeout = reply.error().message == "timeout";
        const std::string why = timeout ? "did not answer within " + std::to_string(s_.timeout.count()) + " ms"
                                        : "ended while judging the action (a policy module crashed)";
        kill_locked(why);
        return {failure(q, "the policy module " + why)};
    }
    const auto j = nlohmann::json::parse(reply.value(), nullptr, false);
    if (!j.is_object() || !j.contains("decisions") || !j["decisions"].is_array()) {
        kill_locked("answered something that is not a decision");
        return {failure(q, "the policy worker answered something that is not a decision")};
    }
    std::vector<PolicyDecision> out;
    for (const auto &e : j["decisions"]) {
        PolicyDecision d;
        d.action = q.action;
        d.session = q.session;
        d.module = e.value("module", std::string());
        d.rule = e.value("rule", std::string());
        d.reason = e.value("reason", std::string());
        const int v = e.value("decision", static_cast<int>(AH_POLICY_DENY));
        const int r = e.value("risk", static_cast<int>(AH_RISK_UNKNOWN));
        d.verdict = static_cast<PolicyVerdict>(v);
        d.risk = static_cast<Risk>(r);
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace actionhost::host
