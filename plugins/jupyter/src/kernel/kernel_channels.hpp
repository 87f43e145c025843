// The five ZeroMQ sockets of one kernel connection (messaging protocol 5.3, "channels"):
//   shell, control, stdin: DEALER (one routing id, so input requests come back to us)
//   iopub: SUB (everything)       heartbeat: REQ (relaxed, so a lost echo does not wedge it)
// Not thread-safe: one KernelSession uses it under its own lock.
#pragma once

#include <actionhost/common/result.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "protocol/connection_info.hpp"
#include "protocol/hmac_signer.hpp"
#include "protocol/message.hpp"
#include "protocol/replay_guard.hpp"

namespace actionhost::jupyter {

class KernelChannels {
  public:
    KernelChannels(zmq::context_t &ctx, const ConnectionInfo &info, const ClientIdentity &who);

    zmq::socket_t shell, iopub, control, stdin_, hb;

    void send(zmq::socket_t &socket, const Message &msg);

    // Takes one multipart message off `socket` without blocking: nullopt when none is waiting. Fails,
    // saying why, on frames that failed decode_message (bad signature, malformed) or a signature already
    // seen (a replay).
    common::Result<std::optional<Message>> receive(zmq::socket_t &socket);

    // One heartbeat round trip within `timeout`.
    bool heartbeat(std::chrono::milliseconds timeout);

    const ClientIdentity &identity() const { return who_; }
    const HmacSigner &signer() const { return signer_; }

  private:
    ClientIdentity who_;
    HmacSigner signer_;
    ReplayGuard replays_;
};

}  // namespace actionhost::jupyter
