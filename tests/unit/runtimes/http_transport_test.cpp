// runtimes/client/src/http_transport: a collected answer is bounded — a server that answers without end
// costs the client an error, not its memory.
#include <actionhost/client/http_transport.hpp>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

using namespace actionhost::client;

namespace {

// One connection on 127.0.0.1: reads the request head, answers 200 with `body_bytes` bytes (at most 10 s).
class OneAnswerServer {
  public:
    explicit OneAnswerServer(size_t body_bytes) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr *>(&addr), len), 0);
        EXPECT_EQ(::listen(listener_, 1), 0);
        EXPECT_EQ(::getsockname(listener_, reinterpret_cast<sockaddr *>(&addr), &len), 0);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this, body_bytes] {
            pollfd p{listener_, POLLIN, 0};
            if (::poll(&p, 1, 10000) != 1) return;
            const int c = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) return;
            timeval tv{10, 0};
            ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            std::string head;
            char buf[4096];
            while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
                const ssize_t n = ::read(c, buf, sizeof buf);
                if (n <= 0) break;
                head.append(buf, static_cast<size_t>(n));
            }
            const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body_bytes) + "\r\n\r\n";
            (void)!::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
            const std::string chunk(65536, 'z');
            for (size_t sent = 0; sent < body_bytes;) {
                const ssize_t n = ::send(c, chunk.data(), std::min(chunk.size(), body_bytes - sent), MSG_NOSIGNAL);
                if (n <= 0) break;  // the client gave up
                sent += static_cast<size_t>(n);
            }
            ::close(c);
        });
    }
    ~OneAnswerServer() {
        thread_.join();
        ::close(listener_);
    }
    int port() const { return port_; }

  private:
    int listener_ = -1, port_ = 0;
    std::thread thread_;
};

}  // namespace

TEST(HttpTransport, ACollectedAnswerAboveItsBoundIsRefused) {
    OneAnswerServer server(8u << 20);
    HttpConnection connection(parse_base_url("http://127.0.0.1:" + std::to_string(server.port())));
    HttpRequest request;
    request.path = "/endless";
    request.max_body_bytes = 1u << 20;
    try {
        connection.send(request);
        FAIL() << "an 8 MiB answer was collected under a 1 MiB bound";
    } catch (const TransportError &e) {
        EXPECT_NE(std::string(e.what()).find("larger than 1048576 bytes"), std::string::npos) << e.what();
    }
}

TEST(HttpTransport, ACollectedAnswerWithinItsBoundArrivesWhole) {
    OneAnswerServer server(3u << 20);
    HttpConnection connection(parse_base_url("http://127.0.0.1:" + std::to_string(server.port())));
    HttpRequest request;
    request.path = "/big";
    const HttpResponse r = connection.send(request);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body.size(), 3u << 20);
    EXPECT_EQ(r.body.find_first_not_of('z'), std::string::npos);
}
