#include "actionhost/common/net/prompt_stop.hpp"

#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace actionhost::common {
namespace {

// The listening address as a client can reach it: a wildcard bind is reached over loopback.
Poco::Net::SocketAddress reachable(const Poco::Net::SocketAddress &listening) {
    if (!listening.host().isWildcard()) return listening;
    const bool v6 = listening.family() == Poco::Net::SocketAddress::IPv6;
    return Poco::Net::SocketAddress(v6 ? "::1" : "127.0.0.1", listening.port());
}

}  // namespace

void prepare_for_prompt_stop(Poco::Net::HTTPServerParams &params) { params.setThreadIdleTime(Poco::Timespan(0, 100000)); }

void stop_promptly(Poco::Net::HTTPServer &server, StopMode mode) {
    auto stop = [&] {
        if (mode == StopMode::AbortingConnections) {
            server.stopAll(true);
        } else {
            server.stop();
        }
    };
    Poco::Net::SocketAddress target;
    try {
        target = reachable(server.socket().address());
    } catch (const Poco::Exception &) {
        stop();  // no address to knock on: the slow way
        return;
    }
    std::atomic<bool> stopped{false};
    std::thread stopper([&] {
        stop();
        stopped = true;
    });
    // Knock until the acceptor has gone. A knock that lands before the stop flag is set is served as an
    // empty connection and ends at once. Bounded: the stop itself takes at most one poll (250 ms).
    for (int i = 0; i < 300 && !stopped.load(); ++i) {
        try {
            Poco::Net::StreamSocket knock;
            knock.connect(target, Poco::Timespan(0, 100000));
        } catch (const Poco::Exception &) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    stopper.join();
}

}  // namespace actionhost::common
