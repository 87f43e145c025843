// Runs an action while following its session's live output (GET /stream, docs/api.md): what the
// command prints reaches the caller as it is printed, not only in the final observation (which the host
// truncates for the agent). Used by `ahctl run`; any program driving a runtime can use it the same way.
//
//   auto obs = execute_following(rt->wire(), action, "", [](const LiveEvent &e) {
//       if (e.type == "output") std::cout << e.data.value("chunk", "") << std::flush;
//   });
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "actionhost/client/wire_client.hpp"

namespace actionhost::client {

// One Server-Sent Event of GET /stream: type "action_start", "output" ({"chunk": text}), "action_end"
// ({"observation": ...}) or "dropped" ({"events": N}: events a slow follower lost).
struct LiveEvent {
    std::string type;
    nlohmann::json data;
};
using LiveEventFn = std::function<void(const LiveEvent &event)>;

// Subscribes to `session`'s stream on a connection of its own, then POSTs `action` through `wire` (its
// timeouts and retries), calling `on_event` from another thread, in order, for every event up to this
// action's end; returns the observation once every event was delivered. An endpoint that cannot stream
// (in-process, the `cli` runtime) runs the action without events. Throws what WireClient::execute throws.
nlohmann::json execute_following(WireClient &wire, const nlohmann::json &action, const std::string &session,
                                 const LiveEventFn &on_event);

// Parses a Server-Sent Events byte stream fed in arbitrary pieces into (event, data) pairs.
class SseParser {
  public:
    // Calls `on_event(type, data)` for each complete event in `piece`; comments (": ...") are skipped.
    void feed(std::string_view piece, const std::function<void(const std::string &, const std::string &)> &on_event);

  private:
    std::string line_, type_, data_;
};

}  // namespace actionhost::client
