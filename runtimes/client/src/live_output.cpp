#include "actionhost/client/live_output.hpp"

#include <Poco/URI.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "actionhost/client/errors.hpp"

namespace actionhost::client {

using nlohmann::json;

void SseParser::feed(std::string_view piece, const std::function<void(const std::string &, const std::string &)> &on_event) {
    for (char c : piece) {
        if (c != '\n') {
            line_ += c;
            continue;
        }
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        if (line_.empty()) {  // a blank line ends the event
            if (!type_.empty() || !data_.empty()) on_event(type_.empty() ? "message" : type_, data_);
            type_.clear();
            data_.clear();
        } else if (line_[0] != ':') {
            const size_t colon = line_.find(':');
            const std::string field = line_.substr(0, colon);
            std::string value = colon == std::string::npos ? "" : line_.substr(colon + 1);
            if (!value.empty() && value[0] == ' ') value.erase(0, 1);
            if (field == "event") type_ = value;
            else if (field == "data") data_ += (data_.empty() ? "" : "\n") + value;
        }
        line_.clear();
    }
}

namespace {

// What the follower thread shares with the caller. The thread owns a reference, so the caller may stop
// waiting for it (a host that stopped answering): once `cancelled`, no event reaches the caller.
struct FollowState {
    std::mutex mu;
    std::condition_variable cv;
    bool subscribed = false, finished = false, cancelled = false;
    LiveEventFn on_event;
};

// How long the caller waits for the host to subscribe the stream, and for the events of an action whose
// reply has come (they are sent before it; this only covers their way through the socket).
constexpr auto kSubscribeWait = std::chrono::seconds(10);
constexpr auto kTailWait = std::chrono::seconds(10);

}  // namespace

json execute_following(WireClient &wire, const json &action, const std::string &session, const LiveEventFn &on_event) {
    if (parse_base_url(wire.base_url()).in_process) return wire.execute(action, session);
    auto state = std::make_shared<FollowState>();
    state->on_event = on_event;
    auto follower = std::make_shared<WireClient>(wire.base_url(), wire.session_api_key(), wire.policy());
    follower->policy().closed_attempts = 1;  // a dropped stream is not retried: events would be lost silently
    std::string query;
    Poco::URI::encode(session, "&=+?#", query);
    std::thread([state, follower, path = "/stream?once=1&session=" + query] {
        SseParser parser;
        bool ended = false;
        HttpRequest req;
        req.path = path;
        req.timeout_s = 60;  // the host sends a keep-alive comment every 15 s while a command is quiet
        req.on_body = [&](std::string_view piece) {
            std::unique_lock lock(state->mu);
            if (state->cancelled) return false;
            if (!state->subscribed) {  // the host subscribes before its first byte
                state->subscribed = true;
                state->cv.notify_all();
            }
            parser.feed(piece, [&](const std::string &type, const std::string &data) {
                LiveEvent ev{type, json::parse(data, nullptr, false)};
                if (type == "action_end") ended = true;
                if (state->on_event && !ev.data.is_discarded()) state->on_event(ev);
            });
            return !ended;
        };
        try {
            follower->request(std::move(req));
        } catch (const std::exception &) {
            // The stream failed; the action's own request reports whether the host is gone.
        }
        std::lock_guard lock(state->mu);
        state->subscribed = state->finished = true;
        state->cv.notify_all();
    }).detach();
    // Whatever happens below, the thread never calls on_event again once this returns.
    struct Cancel {
        FollowState &s;
        ~Cancel() {
            std::lock_guard lock(s.mu);
            s.cancelled = true;
            s.on_event = nullptr;
        }
    } cancel{*state};
    {
        std::unique_lock lock(state->mu);
        state->cv.wait_for(lock, kSubscribeWait, [&] { return state->subscribed; });
    }
    json obs = wire.execute(action, session);  // the thread ends at this action's action_end (once=1)
    std::unique_lock lock(state->mu);
    state->cv.wait_for(lock, kTailWait, [&] { return state->finished; });
    return obs;
}

}  // namespace actionhost::client
