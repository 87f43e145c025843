// Sandboxes kept alive past the client (sandbox.keep_runtime_alive): stopping, probing, reclaiming.
#include "actionhost/client/state_store.hpp"
#include "runtime_impl.hpp"

namespace actionhost::client {

void Runtime::stop_kept_alive() {
    Impl &s = *impl_;
    if (s.connected) {
        s.options.config.set("sandbox.keep_runtime_alive", false);
        close();
        return;
    }
    if (auto *ext = s.reclaimer()) {
        s.check(ext->discard(s.runtime), "stop");
    } else {
        s.options.config.set("sandbox.keep_runtime_alive", false);
        connect();  // reattaches
        close();    // stops
    }
    StateStore(s.state_dir).remove(s.session_id);
    s.closed = true;
    s.status(AH_STATUS_STOPPED, "");
}

std::optional<bool> Runtime::kept_alive_exists() {
    auto *ext = impl_->reclaimer();
    if (!ext) return std::nullopt;
    return ext->exists(impl_->runtime) != 0;
}

std::vector<std::string> Runtime::reclaim_leftovers(bool thorough) {
    Impl &s = *impl_;
    auto *ext = s.reclaimer();
    if (!ext) return {};
    std::vector<std::string> ended;
    auto collect = [](void *context, const char *session_id) {
        if (session_id) static_cast<std::vector<std::string> *>(context)->push_back(session_id);
    };
    s.check(ext->reclaim(s.runtime, thorough ? AH_RECLAIM_THOROUGH : 0, collect, &ended), "reclaim what ended sandboxes left");
    StateStore store(s.state_dir);
    for (const auto &sid : ended) store.remove(sid);
    return ended;
}

}  // namespace actionhost::client
