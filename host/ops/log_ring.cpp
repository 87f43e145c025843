#include "ops/log_ring.hpp"

#include <algorithm>

namespace actionhost::host {

LogRing::LogRing(size_t max_lines, size_t max_bytes) : max_lines_(std::max<size_t>(max_lines, 1)), max_bytes_(max_bytes) {}

void LogRing::append(std::string line) {
    while (!line.empty() && line.back() == '\n') line.pop_back();
    {
        std::lock_guard lock(mu_);
        bytes_ += line.size();
        lines_.push_back(std::move(line));
        // The newest line stays even when it alone is over the byte bound: a follower sees every line
        // that was the last one when it asked.
        while (lines_.size() > 1 && (lines_.size() > max_lines_ || bytes_ > max_bytes_)) {
            bytes_ -= lines_.front().size();
            lines_.pop_front();
            ++first_;
        }
    }
    cv_.notify_all();
}

LogRing::Page LogRing::since(uint64_t from, std::chrono::milliseconds wait, size_t max_lines) {
    std::unique_lock lock(mu_);
    auto end = [&] { return first_ + lines_.size(); };
    if (from > end()) from = end();  // a number from before the host restarted: start from now
    cv_.wait_for(lock, wait, [&] { return closed_ || end() > from; });
    Page page;
    if (from < first_) {
        page.dropped = first_ - from;
        from = first_;
    }
    for (uint64_t i = from; i < end() && page.lines.size() < max_lines; ++i) page.lines.push_back(lines_[i - first_]);
    page.next = from + page.lines.size();
    return page;
}

void LogRing::close() {
    {
        std::lock_guard lock(mu_);
        closed_ = true;
    }
    cv_.notify_all();
}

}  // namespace actionhost::host
