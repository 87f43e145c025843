#include "undo_history.hpp"

namespace actionhost::agent_skills {

void UndoHistory::push(const std::string &path, std::string content) {
    std::lock_guard<std::mutex> lock(mu_);
    auto &stack = entries_[path];
    stack.push_back(std::move(content));
    while (stack.size() > max_) stack.pop_front();
}

std::optional<std::string> UndoHistory::pop(const std::string &path) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(path);
    if (it == entries_.end() || it->second.empty()) return std::nullopt;
    std::string out = std::move(it->second.back());
    it->second.pop_back();
    if (it->second.empty()) entries_.erase(it);
    return out;
}

}  // namespace actionhost::agent_skills
