#include "policy/confirmations.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

namespace actionhost::host {
namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Ids differ across host starts (a client must not confirm a new action with an old id).
std::string fresh_id(uint64_t n) {
    std::random_device rd;
    char buf[40];
    std::snprintf(buf, sizeof buf, "pa-%llu-%08x", static_cast<unsigned long long>(n), rd());
    return buf;
}

}  // namespace

Confirmations::Outcome Confirmations::wait(Pending p, std::chrono::milliseconds timeout,
                                           const std::function<void(const Pending &)> &announce) {
    auto slot = std::make_shared<Slot>();
    {
        std::lock_guard lock(mu_);
        if (stopped_) return Outcome::Stopped;
        p.id = fresh_id(next_++);
        p.since = now_s();
        slot->p = std::move(p);
        slots_[slot->p.id] = slot;
    }
    if (announce) announce(slot->p);
    std::unique_lock lock(mu_);
    const bool answered = cv_.wait_for(lock, timeout, [&] { return slot->answer.has_value() || stopped_; });
    slots_.erase(slot->p.id);
    if (!answered) return Outcome::TimedOut;
    if (!slot->answer) return Outcome::Stopped;
    return *slot->answer ? Outcome::Confirmed : Outcome::Rejected;
}

bool Confirmations::answer(const std::string &id, bool confirm) {
    std::lock_guard lock(mu_);
    const auto it = slots_.find(id);
    if (it == slots_.end() || it->second->answer) return false;
    it->second->answer = confirm;
    cv_.notify_all();
    return true;
}

nlohmann::json Confirmations::pending_json() const {
    std::lock_guard lock(mu_);
    std::vector<const Pending *> list;
    for (const auto &[_, s] : slots_)
        if (!s->answer) list.push_back(&s->p);
    std::sort(list.begin(), list.end(), [](const Pending *a, const Pending *b) { return a->since < b->since; });
    nlohmann::json out = nlohmann::json::array();
    for (const Pending *p : list)
        out.push_back({{"id", p->id}, {"session", p->session}, {"action", p->action},
                       {"risk", to_string(p->decision.risk)}, {"module", p->decision.module},
                       {"rule", p->decision.rule}, {"reason", p->decision.reason}, {"since", p->since}});
    return out;
}

void Confirmations::stop() {
    std::lock_guard lock(mu_);
    stopped_ = true;
    cv_.notify_all();
}

}  // namespace actionhost::host
