#include "kernel/kernel_channels.hpp"

#include <vector>
#include <zmq_addon.hpp>

#include "kernel/zmq_frame_reads.hpp"

namespace actionhost::jupyter {

namespace {
void common_options(zmq::socket_t &s) {
    s.set(zmq::sockopt::linger, 0);  // a dead kernel must never block close
}
}  // namespace

KernelChannels::KernelChannels(zmq::context_t &ctx, const ConnectionInfo &info, const ClientIdentity &who)
    : shell(ctx, zmq::socket_type::dealer),
      iopub(ctx, zmq::socket_type::sub),
      control(ctx, zmq::socket_type::dealer),
      stdin_(ctx, zmq::socket_type::dealer),
      hb(ctx, zmq::socket_type::req),
      who_(who),
      signer_(info.key) {
    for (zmq::socket_t *s : {&shell, &iopub, &control, &stdin_, &hb}) common_options(*s);
    shell.set(zmq::sockopt::routing_id, who.session);
    stdin_.set(zmq::sockopt::routing_id, who.session);
    control.set(zmq::sockopt::routing_id, who.session);
    iopub.set(zmq::sockopt::subscribe, "");
    // Deep enough that a busy cell loses nothing while we are briefly descheduled, finite so a kernel that
    // prints while no cell runs (a background thread) cannot grow our memory without bound.
    iopub.set(zmq::sockopt::rcvhwm, 1000);
    hb.set(zmq::sockopt::req_relaxed, 1);
    hb.set(zmq::sockopt::req_correlate, 1);
    shell.connect(info.endpoint(info.shell_port));
    iopub.connect(info.endpoint(info.iopub_port));
    control.connect(info.endpoint(info.control_port));
    stdin_.connect(info.endpoint(info.stdin_port));
    hb.connect(info.endpoint(info.hb_port));
}

void KernelChannels::send(zmq::socket_t &socket, const Message &msg) {
    std::vector<std::string> frames = encode_message(msg, signer_);
    for (size_t i = 0; i < frames.size(); ++i) {
        const auto flags = i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
        socket.send(zmq::buffer(frames[i]), flags);
    }
}

common::Result<std::optional<Message>> KernelChannels::receive(zmq::socket_t &socket) {
    std::vector<zmq::message_t> parts;
    const auto got = zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait);
    if (!got || *got == 0) return std::optional<Message>();
    std::vector<std::string_view> frames;
    frames.reserve(parts.size());
    for (const auto &p : parts) frames.emplace_back(static_cast<const char *>(p.data()), p.size());
    std::string signature;
    auto decoded = [&] {
        ZmqFrameReads reads;  // every read of zmq's buffers is in here (see zmq_frame_reads.hpp)
        for (size_t i = 0; i + 1 < frames.size(); ++i) {
            if (frames[i] != kDelimiter) continue;
            signature = frames[i + 1];
            break;
        }
        return decode_message(frames, signer_);
    }();
    if (!decoded) return decoded.as_failure();
    if (!replays_.first_sight(signature)) return common::fail("replayed message (its signature was already seen)");
    return std::optional<Message>(std::move(decoded).value());
}

bool KernelChannels::heartbeat(std::chrono::milliseconds timeout) {
    static constexpr std::string_view kPing = "ping";
    try {
        if (!hb.send(zmq::buffer(kPing), zmq::send_flags::dontwait)) return false;
        zmq::pollitem_t item{static_cast<void *>(hb), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, timeout) <= 0) return false;
        zmq::message_t reply;
        return hb.recv(reply, zmq::recv_flags::dontwait).has_value();
    } catch (const zmq::error_t &) {
        return false;
    }
}

}  // namespace actionhost::jupyter
