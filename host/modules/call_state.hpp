// The host side of one action handed to a plugin (the opaque ah_call_t of the ABI).
#pragma once

#include <actionhost/host.h>

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace actionhost::host {
class StreamHub;
}

struct ah_call {
    std::mutex mu;
    std::optional<std::string> observation;  // set_observation
    std::string error;                       // set_error
    std::string session;
    actionhost::host::StreamHub *streams = nullptr;  // where emit_partial goes (may be null)
    // In a plugin worker (modules/isolated_plugin.hpp): where emit_partial goes instead, to the host, whose
    // followers the worker does not know. `stream` is 0 (unmarked) or an ah_output_stream_t.
    std::function<void(int stream, std::string_view chunk)> relay;
};

namespace actionhost::host {

// Calls are valid only while `execute` runs. A plugin that keeps the pointer and uses it later must not
// crash the host: services look the pointer up here first.
class LiveCalls {
  public:
    static void add(ah_call *c);
    static void remove(ah_call *c);
    // Runs fn(c) under the registry lock if `c` is live; returns false otherwise.
    template <class F>
    static bool with(ah_call *c, F &&fn);

  private:
    static std::mutex &mu();
    static bool contains(ah_call *c);
};

template <class F>
bool LiveCalls::with(ah_call *c, F &&fn) {
    std::lock_guard lock(mu());
    if (!contains(c)) return false;
    fn(c);
    return true;
}

// Registers a call for the lifetime of the guard.
class LiveCallGuard {
  public:
    explicit LiveCallGuard(ah_call *c) : c_(c) { LiveCalls::add(c); }
    ~LiveCallGuard() { LiveCalls::remove(c_); }
    LiveCallGuard(const LiveCallGuard &) = delete;
    LiveCallGuard &operator=(const LiveCallGuard &) = delete;

  private:
    ah_call *c_;
};

}  // namespace actionhost::host
