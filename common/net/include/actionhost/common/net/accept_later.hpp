// What an accept loop on a Boost.Asio acceptor does when an accept fails (out of descriptors, say): it
// tries again after a pause, never at once, which would spin the loop at full speed for as long as the
// failure lasts. Header-only, as byte_relay.hpp, for ah-sandbox-init's loops as much as for the host's.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <utility>

namespace actionhost::common::net {

// Runs `again` on `io` after `pause`; not at all once `io` stops (the timer is cancelled with it).
// Thread: the one running `io`.
template <class Again>
void accept_later(boost::asio::io_context &io, Again again, std::chrono::milliseconds pause = std::chrono::milliseconds(100)) {
    auto timer = std::make_shared<boost::asio::steady_timer>(io, pause);
    timer->async_wait([timer, again = std::move(again)](const boost::system::error_code &ec) mutable {
        if (!ec) again();
    });
}

}  // namespace actionhost::common::net
