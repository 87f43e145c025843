#include "policy/policy_worker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <actionhost/common/json_io.hpp>

#include "sys/worker_wire.hpp"

extern char **environ;

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
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (!why.empty() && s_.log) {
        std::string how = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
        s_.log(AH_LOG_ERROR, "the policy worker (pid " + std::to_string(pid_) + ") " + why + "; it " + how +
                                 " and is started again for the next action");
    }
    pid_ = -1;
}

common::Status PolicyWorker::spawn_locked() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return common::fail(std::string("socketpair: ") + std::strerror(errno), errno);
    // The child's end becomes its fd 3 (dup2 clears close-on-exec); a number above 3 first, so the dup2 is
    // never a no-op that would keep the flag.
    const int child_end = ::fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
    ::close(sv[1]);
    if (child_end < 0) {
        ::close(sv[0]);
        return common::fail(std::string("fcntl: ") + std::strerror(errno), errno);
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, child_end, 3);
    std::vector<std::string> args = {s_.program, "--policy-worker", "3"};
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, s_.program.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(child_end);
    if (rc != 0) {
        ::close(sv[0]);
        return common::fail("cannot start the policy worker " + s_.program + ": " + std::strerror(rc), rc);
    }
    pid_ = pid;
    fd_ = sv[0];
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
