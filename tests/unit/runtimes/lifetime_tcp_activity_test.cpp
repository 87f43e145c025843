// The connection counting of the local and docker keepers (actionhost/lifetime/tcp_activity.hpp): test-
// made /proc/net/tcp and tcp6 files (listeners, other ports, the client's own end, closing states, peers
// on the same machine, IPv6 and v4-mapped addresses), then the machine's own files with a real listener,
// a connection waiting unaccepted in its queue (a frozen host's) counted as any other.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <actionhost/lifetime/tcp_activity.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"

using actionhost::lifetime::open_tcp_connections;
using actionhost::lifetime::tcp_connections_in;

namespace {

// The kernel's format; the columns after the state are not read.
const char *kTail = " 00000000:00000000 00:00000000 00000000     0        0 1000 1 0000000000000000 100 0 0 10 0\n";

std::string tcp4() {
    // Port 41000 = A028; 127.0.0.1 = 0100007F; 192.168.0.2 = 0200A8C0; 192.168.0.1 = 0100A8C0.
    return std::string("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n") +
           "   0: 0100007F:A028 00000000:0000 0A" + kTail +  // the listener
           "   1: 0100007F:A028 0100007F:D2F0 01" + kTail +  // a loopback client: counted unless peers on the machine are ignored
           "   2: 0100007F:D2F0 0100007F:A028 01" + kTail +  // that client's own end: another local port
           "   3: 0100007F:A028 0100007F:D2F2 06" + kTail +  // TIME_WAIT: over
           "   4: 0100007F:A028 0100007F:D2F4 08" + kTail +  // CLOSE_WAIT: the client is gone
           "   5: 0200A8C0:A028 0100A8C0:D2F6 01" + kTail +  // from another address: counted
           "   6: 0100007F:1F90 0100007F:D2F8 01" + kTail +  // another port
           "   7: 0200A8C0:A028 0200A8C0:D2FA 03" + kTail +  // SYN_RECV from its own address
           "   8: garbage\n";
}

std::string tcp6() {
    // ::1 = 00000000000000000000000001000000; ::ffff:127.0.0.1 = 0000000000000000FFFF00000100007F;
    // 2001:db8::1 = B80D0120000000000000000001000000, 2001:db8::2 ends 02000000.
    return std::string("  sl  local_address                         remote_address                        st tx_queue\n") +
           "   0: 00000000000000000000000000000000:A028 00000000000000000000000000000000:0000 0A" + kTail +
           "   1: 00000000000000000000000001000000:A028 00000000000000000000000001000000:D300 01" + kTail +
           "   2: 0000000000000000FFFF00000100007F:A028 0000000000000000FFFF00000100007F:D302 01" + kTail +
           "   3: B80D0120000000000000000001000000:A028 B80D0120000000000000000002000000:D304 01" + kTail +
           "   4: B80D0120000000000000000001000000:A029 B80D0120000000000000000002000000:D306 01" + kTail;
}

void write_file(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

}  // namespace

TEST(LifetimeTcpActivity, CountsConnectionsToThePortNotListenersOrOtherEnds) {
    actionhost::testing::TempDir dir("ah-tcp-activity");
    write_file(dir / "tcp", tcp4());
    write_file(dir / "tcp6", tcp6());
    EXPECT_EQ(tcp_connections_in(dir / "tcp", 41000, false), 3u);  // 1, 5, 7
    EXPECT_EQ(tcp_connections_in(dir / "tcp", 41000, true), 1u);   // 5 alone
    EXPECT_EQ(tcp_connections_in(dir / "tcp", 8080, false), 1u);
    EXPECT_EQ(tcp_connections_in(dir / "tcp", 80, false), 0u);
    EXPECT_EQ(tcp_connections_in(dir / "tcp6", 41000, false), 3u);  // 1, 2, 3
    EXPECT_EQ(tcp_connections_in(dir / "tcp6", 41000, true), 1u);   // 3: ::1 and ::ffff:127.0.0.1 are this machine
    EXPECT_EQ(tcp_connections_in(dir / "tcp6", 41001, false), 1u);
    EXPECT_EQ(open_tcp_connections(41000, false, dir.path()), 6u);
    EXPECT_EQ(open_tcp_connections(41000, true, dir.path()), 2u);
    EXPECT_EQ(open_tcp_connections(41000, false, dir / "missing"), 0u);
}

TEST(LifetimeTcpActivity, AConnectionNobodyAcceptedIsCountedOnThisMachine) {
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    ASSERT_EQ(listen(listener, 8), 0);
    socklen_t len = sizeof a;
    ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr *>(&a), &len), 0);
    const int port = ntohs(a.sin_port);
    EXPECT_EQ(open_tcp_connections(port, false), 0u);  // the listener alone
    const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_EQ(connect(client, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);  // queued: nobody accepts
    EXPECT_EQ(open_tcp_connections(port, false), 1u);
    EXPECT_EQ(open_tcp_connections(port, true), 0u);  // from this machine's loopback
    close(client);
    close(listener);
}
