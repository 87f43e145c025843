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

// The follower's side: whether it is subscribed, whether it saw the action end, why it stopped.
struct FollowState {
    std::mutex mu;
    std::condition_variable cv;
    bool subscribed = false, finished = false;
};

}  // namespace

json execute_following(WireClient &wire, const json &action, const std::string &session, const LiveEventFn &on_event) {
    if (parse_base_url(wire.base_url()).in_process) return wire.execute(action, session);
    FollowState state;
    WireClient follower(wire.base_url(), wire.session_api_key(), wire.policy());
    follower.policy().closed_attempts = 1;  // a dropped stream is not retried: events would be lost silently
    std::string query;
    Poco::URI::encode(session, "&=+?#", query);
    std::thread reader([&] {
        SseParser parser;
        bool ended = false;
        HttpRequest req;
        req.path = "/stream?once=1&session=" + query;
        req.timeout_s = 60;  // the host sends a keep-alive comment every 15 s while a command is quiet
        req.on_body = [&](std::string_view piece) {
            {
                std::lock_guard lock(state.mu);
                if (!state.subscribed) {  // the host subscribes before its first byte
                    state.subscribed = true;
                    state.cv.notify_all();
                }
            }
            parser.feed(piece, [&](const std::string &type, const std::string &data) {
                LiveEvent ev{type, json::parse(data, nullptr, false)};
                if (type == "action_end") ended = true;
                if (on_event && !ev.data.is_discarded()) on_event(ev);
            });
            return !ended;
        };
        try {
            follower.request(std::move(req));
        } catch (const std::exception &) {
            // The stream failed; the action's own request reports whether the host is gone.
        }
        std::lock_guard lock(state.mu);
        state.subscribed = state.finished = true;
        state.cv.notify_all();
    });
    struct Join {
        std::thread &t;
        ~Join() {
            if (t.joinable()) t.join();
        }
    } join{reader};
    {
        std::unique_lock lock(state.mu);
        state.cv.wait_for(lock, std::chrono::seconds(30), [&] { return state.subscribed; });
    }
    return wire.execute(action, session);  // the reader ends at this action's action_end (once=1)
}

}  // namespace actionhost::client
