#include "upstream_socket.hpp"

#include <Poco/Net/SocketAddress.h>

namespace actionhost::vscode {

Poco::Net::StreamSocket connect_unix_socket(const std::string &path, Poco::Timespan connect_timeout,
                                            Poco::Timespan io_timeout) {
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, path), connect_timeout);
    socket.setSendTimeout(io_timeout);
    socket.setReceiveTimeout(io_timeout);
    return socket;
}

}  // namespace actionhost::vscode
