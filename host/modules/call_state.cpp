#include "modules/call_state.hpp"

#include <unordered_set>

namespace actionhost::host {
namespace {
std::unordered_set<ah_call *> &live() {
    static std::unordered_set<ah_call *> s;
    return s;
}
}  // namespace

std::mutex &LiveCalls::mu() {
    static std::mutex m;
    return m;
}
bool LiveCalls::contains(ah_call *c) { return live().count(c) != 0; }
void LiveCalls::add(ah_call *c) {
    std::lock_guard lock(mu());
    live().insert(c);
}
void LiveCalls::remove(ah_call *c) {
    std::lock_guard lock(mu());
    live().erase(c);
}

}  // namespace actionhost::host
