// A listening socket on 127.0.0.1:<ephemeral> for the fakes' servers: plain, or TLS with a certificate.
#pragma once

#include <Poco/Net/ServerSocket.h>

#include <optional>

#include "support/cloud_fakes/fake_http_server.hpp"

namespace cloud_fakes {

Poco::Net::ServerSocket listen_loopback(const std::optional<actionhost::testing::TlsServerFiles> &tls);

}  // namespace cloud_fakes
