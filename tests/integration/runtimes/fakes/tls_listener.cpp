#include "tls_listener.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SSLManager.h>

namespace cloud_fakes {

Poco::Net::ServerSocket listen_loopback(const std::optional<actionhost::testing::TlsServerFiles> &tls) {
    Poco::Net::SocketAddress where("127.0.0.1", 0);
    if (!tls) return Poco::Net::ServerSocket(where);
    Poco::Net::initializeSSL();
    Poco::Net::Context::Ptr ctx = new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, tls->key_file, tls->cert_file, "",
                                                         Poco::Net::Context::VERIFY_NONE);
    return Poco::Net::SecureServerSocket(where, 64, ctx);
}

}  // namespace cloud_fakes
