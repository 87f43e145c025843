// code-server's end of the token proxy: a unix socket in the plugin's private directory. code-server
// has no token check of its own (--auth none), so it must not be reachable by anything but the proxy:
// a loopback TCP port would let every local user in; a socket file that only its owner may open
// (mode 0600, in a 0700 directory) does not.
#pragma once

#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include <string>

namespace actionhost::vscode {

// A stream socket connected to the unix socket at `path` within `connect_timeout`, with `io_timeout` as
// its send and receive timeout. Throws Poco::Exception when nothing listens there (yet).
Poco::Net::StreamSocket connect_unix_socket(const std::string &path, Poco::Timespan connect_timeout,
                                            Poco::Timespan io_timeout);

}  // namespace actionhost::vscode
