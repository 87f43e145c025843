#include "sessions.hpp"


#include <algorithm>
#include <cctype>
#include <actionhost/common/random.hpp>

namespace actionhost::mcp {

void EventQueue::push(std::string message) {
    std::lock_guard lock(mu_);
    if (closed_) return;
    if (items_.size() >= kMaxQueued) items_.pop_front();
    items_.push_back(std::move(message));
    cv_.notify_all();
}

std::vector<std::string> EventQueue::wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
    std::vector<std::string> out(std::make_move_iterator(items_.begin()), std::make_move_iterator(items_.end()));
    items_.clear();
    return out;
}

void EventQueue::close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    cv_.notify_all();
}

bool EventQueue::closed() const {
    std::lock_guard lock(mu_);
    return closed_;
}

std::string SessionRegistry::normalise_id(const std::string &id) {
    std::string hex;
    std::string s = id;
    if (s.rfind("urn:uuid:", 0) == 0) s = s.substr(9);
    if (s.size() >= 2 && s.front() == '{' && s.back() == '}') s = s.substr(1, s.size() - 2);
    for (char c : s) {
        if (c == '-') continue;
        if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
        hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return hex.size() == 32 ? hex : "";
}

std::shared_ptr<Session> SessionRegistry::create(bool sse) {
    auto s = std::make_shared<Session>();
    s->sse = sse;
    std::string uuid = common::random_uuid4();
    std::erase(uuid, '-');
    s->id = uuid;
    std::lock_guard lock(mu_);
    if (sessions_.size() >= kMaxSessions) {
        // Evict the Streamable HTTP session unused for longest (an open SSE stream is never evicted).
        auto victim = sessions_.end();
        for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
            if (!it->second->sse && (victim == sessions_.end() || it->second->last_used < victim->second->last_used)) victim = it;
        if (victim != sessions_.end()) {
            victim->second->queue.close();
            sessions_.erase(victim);
        }
    }
    s->last_used = ++uses_;
    sessions_[s->id] = s;
    return s;
}

std::shared_ptr<Session> SessionRegistry::find(const std::string &id) {
    const std::string key = normalise_id(id);
    std::lock_guard lock(mu_);
    auto it = sessions_.find(key);
    if (it == sessions_.end()) return nullptr;
    it->second->last_used = ++uses_;
    return it->second;
}

void SessionRegistry::remove(const std::string &id) {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(normalise_id(id));
    if (it == sessions_.end()) return;
    it->second->queue.close();
    sessions_.erase(it);
}

void SessionRegistry::broadcast(const std::string &message) {
    std::lock_guard lock(mu_);
    for (auto &[_, s] : sessions_) s->queue.push(message);
}

void SessionRegistry::close_all() {
    std::lock_guard lock(mu_);
    for (auto &[_, s] : sessions_) s->queue.close();
    sessions_.clear();
}

}  // namespace actionhost::mcp
