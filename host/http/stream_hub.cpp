#include "http/stream_hub.hpp"

#include <algorithm>
#include <chrono>

namespace actionhost::host {

std::vector<StreamEvent> StreamHub::Subscription::next(int timeout_ms) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !queue_.empty() || closed_ || dropped_; });
    std::vector<StreamEvent> out;
    if (dropped_) {
        out.push_back({"dropped", "{\"events\":" + std::to_string(dropped_) + "}"});
        dropped_ = 0;
    }
    while (!queue_.empty()) {
        out.push_back(std::move(queue_.front()));
        queue_.pop_front();
    }
    queued_bytes_ = 0;
    return out;
}

bool StreamHub::Subscription::closed() const {
    std::lock_guard lock(mu_);
    return closed_;
}

std::shared_ptr<StreamHub::Subscription> StreamHub::subscribe(const std::string &session) {
    auto sub = std::make_shared<Subscription>();
    std::lock_guard lock(mu_);
    subs_[session].push_back(sub);
    return sub;
}

void StreamHub::unsubscribe(const std::string &session, const std::shared_ptr<Subscription> &sub) {
    std::lock_guard lock(mu_);
    auto it = subs_.find(session);
    if (it == subs_.end()) return;
    auto &v = it->second;
    v.erase(std::remove(v.begin(), v.end(), sub), v.end());
    if (v.empty()) subs_.erase(it);
}

void StreamHub::publish(const std::string &session, const std::string &type, const std::string &data) {
    std::lock_guard lock(mu_);
    auto it = subs_.find(session);
    if (it == subs_.end()) return;
    for (const auto &sub : it->second) {
        std::lock_guard slock(sub->mu_);
        while (!sub->queue_.empty() && sub->queued_bytes_ + data.size() > kMaxQueuedBytes) {
            sub->queued_bytes_ -= std::min(sub->queued_bytes_, sub->queue_.front().data.size());
            sub->queue_.pop_front();
            ++sub->dropped_;
        }
        sub->queue_.push_back({type, data});
        sub->queued_bytes_ += data.size();
        sub->cv_.notify_one();
    }
}

bool StreamHub::has_followers(const std::string &session) {
    std::lock_guard lock(mu_);
    return subs_.count(session) != 0;
}

void StreamHub::close_all() {
    std::lock_guard lock(mu_);
    for (auto &[_, v] : subs_)
        for (auto &sub : v) {
            std::lock_guard slock(sub->mu_);
            sub->closed_ = true;
            sub->cv_.notify_all();
        }
}

}  // namespace actionhost::host
