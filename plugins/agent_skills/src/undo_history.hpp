// The editor's undo stack: up to 10 previous contents per file (oldest dropped first), shared by all
// sessions as OpenHands' single editor instance shares it. Thread-safe.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace actionhost::agent_skills {

class UndoHistory {
  public:
    explicit UndoHistory(size_t max_per_file = 10) : max_(max_per_file) {}
    void push(const std::string &path, std::string content);
    std::optional<std::string> pop(const std::string &path);

  private:
    size_t max_;
    std::mutex mu_;
    std::map<std::string, std::deque<std::string>> entries_;
};

}  // namespace actionhost::agent_skills
