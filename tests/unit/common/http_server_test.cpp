// common/http's server with handlers written here, over real loopback sockets: keep-alive, pipelining,
// chunked bodies both ways, 100-continue, files, HEAD, the connection cap, timeouts and stop.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <actionhost/common/http/server.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "support/proc_file.hpp"

#include "support/temp_dir.hpp"

using namespace actionhost::common::http;
using namespace std::chrono_literals;

namespace {

int connect_to(uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

void send_text(int fd, const std::string &text) { ASSERT_EQ(::send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size())); }

// Reads until `needle` has arrived, the peer closed (then `closed`), or `ms` pass quietly.
std::string read_until(int fd, const std::string &needle, bool *closed = nullptr, int ms = 3000) {
    std::string got;
    char buf[65536];
    for (int round = 0; round < 100000 && (needle.empty() || got.find(needle) == std::string::npos); ++round) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, ms) <= 0) break;
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            if (closed) *closed = true;
            break;
        }
        got.append(buf, static_cast<size_t>(n));
    }
    return got;
}

bool peer_closed(int fd, int ms) {
    bool closed = false;
    read_until(fd, "", &closed, ms);
    return closed;
}

// Echoes the method, target and body back; some targets do more.
void echo(Request &req, Response &resp) {
    std::ostringstream body;
    body << req.body().rdbuf();
    resp.send(200, "text/plain", req.method() + " " + req.target() + " " + body.str());
}

class HttpServerTest : public ::testing::Test {
  protected:
    void start(Handler h, ServerSettings s = {}) {
        server_ = std::make_unique<Server>("127.0.0.1", 0, std::move(h), s);
        server_->start();
        port_ = server_->port();
    }
    void TearDown() override {
        if (server_) server_->stop();
    }
    std::unique_ptr<Server> server_;
    uint16_t port_ = 0;
};

}  // namespace

TEST_F(HttpServerTest, KeepsConnectionsAliveAndAnswersPipelinedRequestsInOrder) {
    start(echo);
    const int fd = connect_to(port_);
    send_text(fd, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
                  "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n5\r\nthree\r\n0\r\n\r\n"
                  "GET /c?q=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string got = read_until(fd, "GET /c?q=1 ");
    const size_t a = got.find("POST /a one"), b = got.find("POST /b twothree"), c = got.find("GET /c?q=1 ");
    EXPECT_NE(a, std::string::npos) << got;
    EXPECT_LT(a, b);
    EXPECT_LT(b, c);
    EXPECT_EQ(got.find("Connection: close"), std::string::npos) << got;
    EXPECT_FALSE(peer_closed(fd, 300));
    ::close(fd);
}

TEST_F(HttpServerTest, AnswersExpectContinueOnlyWhenTheBodyIsRead) {
    start([](Request &req, Response &resp) {
        if (req.target() == "/read") return echo(req, resp);
        resp.send(403, "text/plain", "no");
    });
    int fd = connect_to(port_);
    send_text(fd, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    EXPECT_EQ(read_until(fd, "\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
    send_text(fd, "body");
    EXPECT_NE(read_until(fd, "POST /read body").find("200 OK"), std::string::npos);
    ::close(fd);
    fd = connect_to(port_);
    send_text(fd, "POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    bool closed = false;
    const std::string got = read_until(fd, "no", &closed);
    EXPECT_EQ(got.find("100 Continue"), std::string::npos) << got;
    EXPECT_NE(got.find("HTTP/1.1 403 Forbidden"), std::string::npos) << got;
    EXPECT_TRUE(peer_closed(fd, 3000)) << "the connection must end: the client may or may not send its body";
    ::close(fd);
}

TEST_F(HttpServerTest, StreamsChunksAsTheyAreFlushedAndEndsThem) {
    std::promise<void> second;
    auto second_future = second.get_future().share();
    start([second_future](Request &, Response &resp) {
        std::ostream &out = resp.begin_stream(200, "text/event-stream");
        out << "first" << std::flush;
        second_future.wait_for(5s);
        out << "second" << std::flush;
    });
    const int fd = connect_to(port_);
    send_text(fd, "GET /s HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string head = read_until(fd, "first\r\n");
    EXPECT_NE(head.find("Transfer-Encoding: chunked"), std::string::npos) << head;
    EXPECT_NE(head.find("\r\n5\r\nfirst\r\n"), std::string::npos) << head;
    second.set_value();
    EXPECT_EQ(read_until(fd, "0\r\n\r\n"), "6\r\nsecond\r\n0\r\n\r\n");
    ::close(fd);
}

TEST_F(HttpServerTest, SendsFilesAndHonoursHead) {
    actionhost::testing::TempDir dir("ahhttp");
    const std::string path = dir / "f.bin";
    std::ofstream(path) << std::string(300000, 'z');
    start([&](Request &, Response &resp) { resp.send_file(200, "application/octet-stream", path); });
    int fd = connect_to(port_);
    send_text(fd, "GET /f HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string got = read_until(fd, std::string(10, 'z') + "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", nullptr, 3000);
    std::string all = got + read_until(fd, "", nullptr, 300);
    EXPECT_NE(all.find("Content-Length: 300000\r\n"), std::string::npos);
    EXPECT_EQ(all.size() - (all.find("\r\n\r\n") + 4), 300000u);
    send_text(fd, "HEAD /f HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string head = read_until(fd, "\r\n\r\n");
    EXPECT_NE(head.find("Content-Length: 300000\r\n"), std::string::npos) << head;
    EXPECT_EQ(read_until(fd, "", nullptr, 300), "") << "a HEAD response carried a body";
    ::close(fd);
}

TEST_F(HttpServerTest, AFailingHandlerGets500AndTheServerGoesOn) {
    start([](Request &req, Response &resp) {
        if (req.target() == "/throw") throw std::runtime_error("boom");
        if (req.target() == "/silent") return;
        resp.send(200, "text/plain", "fine");
    });
    for (const char *target : {"/throw", "/silent"}) {
        const int fd = connect_to(port_);
        send_text(fd, std::string("GET ") + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
        EXPECT_NE(read_until(fd, "later.\"}").find("HTTP/1.1 500 Internal Server Error"), std::string::npos) << target;
        ::close(fd);
    }
    const int fd = connect_to(port_);
    send_text(fd, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(read_until(fd, "fine").find("200 OK"), std::string::npos);
    ::close(fd);
}

TEST_F(HttpServerTest, HeadersCannotBeSplitByTheirValues) {
    start([](Request &, Response &resp) {
        EXPECT_FALSE(resp.set_header("X-A", "1\r\nX-B: 2"));
        EXPECT_FALSE(resp.set_header("X-A\r\nX-B", "2"));
        EXPECT_FALSE(resp.set_header("", "2"));
        EXPECT_TRUE(resp.set_header("X-Ok", "tab\tand text"));
        resp.send(200, "text/plain\r\nX-C: 3", "x");
    });
    const int fd = connect_to(port_);
    send_text(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string got = read_until(fd, "\r\n\r\nx");
    EXPECT_EQ(got.find("X-B"), std::string::npos) << got;
    EXPECT_EQ(got.find("X-C"), std::string::npos) << got;
    EXPECT_NE(got.find("X-Ok: tab\tand text\r\n"), std::string::npos) << got;
    ::close(fd);
}

TEST_F(HttpServerTest, AtTheCapTheConnectionIdleLongestMakesRoom) {
    std::promise<void> release;
    auto released = release.get_future().share();
    ServerSettings s;
    s.max_connections = 4;
    start(
        [released](Request &req, Response &resp) {
            if (req.target() == "/hold") released.wait_for(10s);
            resp.send(200, "text/plain", "ok");
        },
        s);
    // One connection being handled is never shed; three idle ones fill the cap.
    const int busy = connect_to(port_);
    send_text(busy, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(100ms);
    int idle[3];
    for (int &fd : idle) {
        fd = connect_to(port_);
        std::this_thread::sleep_for(30ms);
    }
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(server_->open_connections(), 4u);
    const int fresh = connect_to(port_);
    send_text(fresh, "GET /now HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(read_until(fresh, "ok").find("200 OK"), std::string::npos);
    EXPECT_TRUE(peer_closed(idle[0], 2000)) << "the oldest idle connection was kept";
    EXPECT_FALSE(peer_closed(idle[2], 200)) << "a younger one was shed";
    EXPECT_GE(server_->shed_connections(), 1u);
    release.set_value();
    EXPECT_NE(read_until(busy, "ok").find("200 OK"), std::string::npos) << "the request being handled was cut";
    for (int fd : idle) ::close(fd);
    ::close(busy);
    ::close(fresh);
}

TEST_F(HttpServerTest, SilentAndHalfSentRequestsAreClosedInTime) {
    ServerSettings s;
    s.first_request_timeout = 300ms;
    s.header_timeout = 600ms;
    s.io_timeout = 500ms;
    start(echo, s);
    const int silent = connect_to(port_);
    const int half_header = connect_to(port_);
    send_text(half_header, "GET / HTTP/1.1\r\nHo");
    const int half_body = connect_to(port_);
    send_text(half_body, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
    EXPECT_TRUE(peer_closed(silent, 2000));
    EXPECT_TRUE(peer_closed(half_header, 2000));
    EXPECT_TRUE(peer_closed(half_body, 3000)) << "a body that stopped arriving held its thread";
    ::close(silent);
    ::close(half_header);
    ::close(half_body);
}

// A deadline nearer than the one the connection's timer waits for is still kept: after a request, a
// kept-alive connection is closed at the (short) idle timeout, not at the first-request one armed before.
TEST_F(HttpServerTest, ANearerDeadlineIsKeptAfterALaterOne) {
    ServerSettings s;
    s.first_request_timeout = 5000ms;
    s.header_timeout = 10000ms;
    s.idle_timeout = 300ms;
    start(echo, s);
    const int fd = connect_to(port_);
    send_text(fd, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(read_until(fd, "GET /a "), "");
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(peer_closed(fd, 3000));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2000ms) << "closed at a later deadline than the idle one";
    ::close(fd);
}

// What the settings mark as answered on the event loop is answered with every handler thread busy,
// pipelined requests in order and the connection kept; a request of the same path with a body is not.
TEST_F(HttpServerTest, AHealthCheckIsAnsweredWhileEveryHandlerThreadIsBusy) {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<int> quick_asks{0};
    ServerSettings s;
    s.max_handlers = 1;
    s.quick_answer = [&](std::string_view method, std::string_view target) -> std::optional<QuickAnswer> {
        ++quick_asks;
        if (method == "GET" && target == "/alive") return QuickAnswer{200, "text/plain", "ok /alive"};
        return std::nullopt;
    };
    start(
        [&](Request &req, Response &resp) {
            if (req.target() == "/slow") released.wait();
            resp.set_header("X-From-Handler", "yes");
            resp.send(200, "text/plain", "ok " + req.target());
        },
        s);
    const int slow = connect_to(port_);
    send_text(slow, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(100ms);  // the only handler thread is in /slow
    const int fd = connect_to(port_);
    const auto t0 = std::chrono::steady_clock::now();
    send_text(fd, "GET /alive HTTP/1.1\r\nHost: x\r\n\r\nGET /alive HTTP/1.1\r\nHost: x\r\n\r\n");
    auto answers_in = [](const std::string &text) {
        size_t n = 0;
        for (size_t at = text.find("ok /alive"); at != std::string::npos; at = text.find("ok /alive", at + 1)) ++n;
        return n;
    };
    std::string both;
    for (int round = 0; round < 20 && answers_in(both) < 2; ++round) both += read_until(fd, "ok /alive", nullptr, 1000);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1000ms);
    EXPECT_EQ(answers_in(both), 2u) << both;
    EXPECT_EQ(both.find("X-From-Handler"), std::string::npos) << both;  // the quick answer, not the handler's
    EXPECT_NE(both.find("Content-Length: 9"), std::string::npos) << both;
    // A body means a thread (it must be read): this one waits for /slow to end.
    const int with_body = connect_to(port_);
    send_text(with_body, "GET /alive HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi");
    EXPECT_EQ(read_until(with_body, "ok /alive", nullptr, 300), "");
    release.set_value();
    EXPECT_NE(read_until(with_body, "X-From-Handler: yes"), "");
    EXPECT_NE(read_until(slow, "ok /slow"), "");
    EXPECT_GE(quick_asks.load(), 3);  // /slow and the two /alive; never the one with a body
    ::close(fd);
    ::close(with_body);
    ::close(slow);
}

// A client that sends its next request as soon as it has an answer is served by the handler's thread
// that answered it, without the event loop: here the loop is kept busy (a request it answers itself
// sleeps) while the next request is answered.
TEST_F(HttpServerTest, TheNextRequestSentAtOnceIsServedWithoutTheEventLoop) {
    std::promise<void> loop_blocked;
    std::shared_future<void> blocked = loop_blocked.get_future().share();
    ServerSettings s;
    s.quick_answer = [&](std::string_view, std::string_view target) -> std::optional<QuickAnswer> {
        if (target != "/block-the-loop") return std::nullopt;
        loop_blocked.set_value();
        std::this_thread::sleep_for(600ms);  // on the event loop
        return QuickAnswer{200, "text/plain", "ok /block-the-loop"};
    };
    start(
        [&](Request &req, Response &resp) {
            if (req.target() == "/first") blocked.wait_for(5s);  // answered once the loop is busy
            resp.send(200, "text/plain", "ok " + req.target());
        },
        s);
    const int client = connect_to(port_);
    send_text(client, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
    std::this_thread::sleep_for(50ms);  // on a handler's thread, waiting
    const int blocker = connect_to(port_);
    send_text(blocker, "GET /block-the-loop HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_NE(read_until(client, "ok /first"), "");
    const auto t0 = std::chrono::steady_clock::now();
    send_text(client, "GET /second HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(read_until(client, "ok /second"), "");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 300ms) << "the second request waited for the event loop";
    EXPECT_NE(read_until(blocker, "ok /block-the-loop"), "");
    ::close(client);
    ::close(blocker);
}

// The thread serving one client's back-to-back requests gives the connection back as soon as another
// request waits for a thread: with one handler thread, another client is answered while the first
// still sends.
TEST_F(HttpServerTest, OneClientsBackToBackRequestsDoNotStarveAnother) {
    ServerSettings s;
    s.max_handlers = 1;
    start(echo, s);
    constexpr int kRequests = 600;
    std::atomic<int> answered{0};
    std::atomic<bool> failed{false};
    std::thread busy([&] {
        const int fd = connect_to(port_);
        for (int i = 0; i < kRequests && !failed; ++i) {
            send_text(fd, "GET /busy HTTP/1.1\r\nHost: x\r\n\r\n");
            if (read_until(fd, "GET /busy ").empty()) failed = true;
            ++answered;
        }
        ::close(fd);
    });
    for (int round = 0; round < 500 && answered < 20; ++round) std::this_thread::sleep_for(2ms);
    const int other = connect_to(port_);
    const auto asked = std::chrono::steady_clock::now();
    send_text(other, "GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string got = read_until(other, "GET /other ", nullptr, 10000);
    const int busy_answered_then = answered;
    busy.join();
    EXPECT_FALSE(failed);
    EXPECT_NE(got.find("GET /other "), std::string::npos);
    EXPECT_LT(busy_answered_then, kRequests - 100) << "the other client waited for the busy one to stop";
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 2s) << "the other client waited for a turn to end";
    ::close(other);
}

// The event loop's thread, found by the name the server gives it.
pid_t thread_named(const std::string &name) {
    for (const auto &e : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream comm(e.path() / "comm");
        std::string got;
        if (std::getline(comm, got) && got == name) return static_cast<pid_t>(std::stol(e.path().filename()));
    }
    return -1;
}
long voluntary_switches(pid_t tid) {
    return actionhost::testing::status_number("/proc/self/task/" + std::to_string(tid) + "/status", "voluntary_ctxt_switches");
}

// While a handler's thread waits for a client's next request, the event loop does not watch that
// connection: a client sending back to back does not wake the loop's thread at every request (each
// wake-up a context switch on the CPU the handler's thread needs next).
TEST_F(HttpServerTest, BackToBackRequestsDoNotWakeTheEventLoop) {
    ServerSettings s;
    s.name = "wakeprobe";
    start(echo, s);
    pid_t loop = -1;  // named by the thread itself, once it runs
    for (int round = 0; round < 200 && loop < 0; ++round, std::this_thread::sleep_for(5ms)) loop = thread_named("wakeprobe-io");
    ASSERT_GT(loop, 0);
    const int fd = connect_to(port_);
    send_text(fd, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_NE(read_until(fd, "GET /first "), "");
    constexpr int kRequests = 300;
    const long before = voluntary_switches(loop);
    for (int i = 0; i < kRequests; ++i) {
        send_text(fd, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
        ASSERT_NE(read_until(fd, "GET /next "), "") << "request " << i;
    }
    const long woken = voluntary_switches(loop) - before;
    // Each request the handler's thread misses (a slow client, a sanitizer's pace) goes back to the loop
    // and costs it a few wake-ups; watched all along, the loop woke at least once per request.
    EXPECT_LT(woken, kRequests / 3) << "the event loop woke " << woken << " times for " << kRequests << " requests";
    ::close(fd);
}

// What arrives right after an answer is checked as any request is: a refused header is refused, one
// arriving in pieces is waited for, a health check is answered.
TEST_F(HttpServerTest, ARequestFollowingAnAnswerIsCheckedAsAny) {
    ServerSettings s;
    s.quick_answer = [](std::string_view, std::string_view target) -> std::optional<QuickAnswer> {
        if (target == "/alive") return QuickAnswer{200, "text/plain", "quick /alive"};
        return std::nullopt;
    };
    start(echo, s);
    const int fd = connect_to(port_);
    send_text(fd, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_NE(read_until(fd, "GET /a "), "");
    send_text(fd, "GET /b HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n");
    std::this_thread::sleep_for(30ms);  // the rest after the handler's thread stopped waiting
    send_text(fd, "X-B: 2\r\n\r\n");
    ASSERT_NE(read_until(fd, "GET /b "), "");
    send_text(fd, "GET /alive HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_NE(read_until(fd, "quick /alive"), "");
    send_text(fd, "GET /c HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n continued\r\n\r\n");
    bool closed = false;
    const std::string refused = read_until(fd, "", &closed);
    EXPECT_NE(refused.find("400 Bad Request"), std::string::npos) << refused;
    EXPECT_NE(refused.find("obsolete line folding"), std::string::npos) << refused;
    EXPECT_TRUE(closed);
    ::close(fd);
}

TEST_F(HttpServerTest, StopEndsBlockedHandlersAndReturnsPromptly) {
    std::atomic<bool> handler_done{false};
    start([&](Request &req, Response &resp) {
        std::ostringstream body;
        body << req.body().rdbuf();  // the client never sends it
        resp.send(200, "text/plain", "late");
        handler_done = true;
    });
    const int fd = connect_to(port_);
    send_text(fd, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
    std::this_thread::sleep_for(200ms);
    const auto t0 = std::chrono::steady_clock::now();
    server_->stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
    EXPECT_TRUE(handler_done);
    EXPECT_EQ(connect_to(port_), -1) << "still listening after stop";
    ::close(fd);
}

TEST_F(HttpServerTest, ABodyLeftUnreadIsDrainedForTheNextRequest) {
    start([](Request &req, Response &resp) { resp.send(200, "text/plain", "seen " + req.target()); });
    const int fd = connect_to(port_);
    send_text(fd, "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                  "GET /two HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string got = read_until(fd, "seen /two");
    EXPECT_NE(got.find("seen /one"), std::string::npos) << got;
    EXPECT_NE(got.find("seen /two"), std::string::npos) << got;
    ::close(fd);
}

// A chunk-size line or a trailer section is framing, not body: a handler's limit on the body never
// counts it, and Beast 1.74 bounds neither. Sent without end, it was kept in memory whole (400 MiB from one
// connection in a second, no key needed: the server drained it after a 403). It must be refused at the
// header's limit, the connection closed.
TEST_F(HttpServerTest, EndlessChunkFramingIsRefusedNotBuffered) {
    start([](Request &req, Response &resp) {
        std::ostringstream body;
        body << req.body().rdbuf();
        resp.send(req.body().bad() ? 400 : 200, "text/plain", "read");
    });
    for (const std::string opening : {"1;a=", "0\r\nX-Trailer: "}) {
        SCOPED_TRACE(opening);
        const int fd = connect_to(port_);
        send_text(fd, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + opening);
        const std::string filler(65536, 'b');
        size_t sent = 0;
        const auto t0 = std::chrono::steady_clock::now();
        while (sent < (64u << 20) && std::chrono::steady_clock::now() - t0 < 20s) {
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, 2000) != 1) break;  // the server stopped reading
            const ssize_t n = ::send(fd, filler.data(), filler.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n < 0 && errno != EAGAIN) break;  // the server closed the connection
            if (n > 0) sent += static_cast<size_t>(n);
        }
        EXPECT_LT(sent, 32u << 20) << "the server took " << (sent >> 20) << " MiB of one chunk-size line or trailer";
        ::close(fd);
    }
}

// A client that sends request after request and reads no answer: once the answers fill the socket's
// buffers, a handler writing the next one waits io_timeout (300 s in the host) for room. No key is
// needed (every answer may be a 403), so a few hundred such connections took every handler thread. A
// connection that cannot take an answer now must wait for its next request on no thread.
TEST_F(HttpServerTest, AClientThatReadsNoAnswerHoldsNoThread) {
    ServerSettings s;
    s.max_handlers = 1;
    s.io_timeout = 30s;
    s.idle_timeout = 2s;
    start([](Request &req, Response &resp) { resp.send(200, "text/plain", req.target() == "/big" ? std::string(1024, 'a') : "fine"); }, s);
    const int reads_nothing = connect_to(port_);
    int tiny = 1;
    ::setsockopt(reads_nothing, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny);
    std::string pipeline;
    for (int i = 0; i < 20000; ++i) pipeline += "GET /big HTTP/1.1\r\nHost: x\r\n\r\n";
    size_t sent = 0;
    for (int round = 0; round < 10000 && sent < pipeline.size(); ++round) {
        pollfd p{reads_nothing, POLLOUT, 0};
        if (::poll(&p, 1, 1000) != 1) break;  // the server stopped reading: its answers have no room
        const ssize_t n = ::send(reads_nothing, pipeline.data() + sent, pipeline.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
    std::this_thread::sleep_for(500ms);
    const auto t0 = std::chrono::steady_clock::now();
    const int other = connect_to(port_);
    send_text(other, "GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(read_until(other, "fine", nullptr, 5000).find("200 OK"), std::string::npos) << "the only handler thread is still writing";
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
    // Closed after the idle time, its unread answers dropped (a reset: reading them through the tiny
    // window would take minutes).
    pollfd hangup{reads_nothing, 0, 0};
    EXPECT_EQ(::poll(&hangup, 1, 5000), 1) << "a client reading nothing was kept past the idle time";
    ::close(other);
    ::close(reads_nothing);
}

// max_header_bytes bounds a header as a whole, however it arrives. Beast 1.74 applies its header limit
// to what one parse call sees, and parses fields as they come: when each read ends a byte or two into a
// field, the limit is never checked. With 8-byte fields after a 30-byte start, a 64 MiB header (no key
// needed) passed a 64 KiB limit and grew the host by 630 MB, each field costing ~10 times its bytes.
TEST_F(HttpServerTest, AHeaderIsBoundedAsAWhole) {
    start(echo);
    std::string request = "GET /aaaaa HTTP/1.1\r\nHost: x\r\n";  // 30 bytes: reads of 4 KiB or 64 KiB end 2 bytes into a field
    for (int i = 0; i < 128 * 1024; ++i) request += "X-A: b\r\n";  // 1 MiB
    request += "\r\n";
    for (const size_t piece : {request.size(), size_t{4096}}) {
        SCOPED_TRACE(piece);
        const int fd = connect_to(port_);
        for (size_t at = 0; at < request.size(); at += piece) {
            if (::send(fd, request.data() + at, std::min(piece, request.size() - at), MSG_NOSIGNAL) <= 0) break;
            if (piece < request.size()) std::this_thread::sleep_for(1ms);  // one parse call per piece
        }
        bool closed = false;
        const std::string got = read_until(fd, "", &closed);
        EXPECT_EQ(got.substr(0, got.find("\r\n")), "HTTP/1.1 431 Request Header Fields Too Large") << got.substr(0, 200);
        EXPECT_TRUE(closed);
        ::close(fd);
    }
    // A header just under the limit is fine.
    const int fd = connect_to(port_);
    send_text(fd, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(60000, 'v') + "\r\n\r\n");
    EXPECT_NE(read_until(fd, "GET /ok").find("200 OK"), std::string::npos);
    ::close(fd);
}

// Each header field costs the parser ~80 bytes of memory however short it is: 64 KiB of "a:" fields
// (16 000 of them, under the size limit, no key needed) cost the host 1.3 MB per connection, 2.6 GB for
// 2 000 connections. The number of fields is bounded too.
TEST_F(HttpServerTest, TheNumberOfHeaderFieldsIsBounded) {
    start(echo);
    std::string request = "GET / HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 16000; ++i) request += "a:\r\n";
    request += "\r\n";
    const int fd = connect_to(port_);
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    bool closed = false;
    const std::string got = read_until(fd, "", &closed);
    EXPECT_EQ(got.substr(0, got.find("\r\n")), "HTTP/1.1 431 Request Header Fields Too Large") << got.substr(0, 200);
    EXPECT_TRUE(closed);
    ::close(fd);
    // As many fields as a browser behind a proxy sends, and more, are fine.
    std::string many = "GET /ok HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 200; ++i) many += "X-Field-" + std::to_string(i) + ": value\r\n";
    const int ok = connect_to(port_);
    send_text(ok, many + "\r\n");
    EXPECT_NE(read_until(ok, "GET /ok").find("200 OK"), std::string::npos);
    ::close(ok);
}

// A body the handler did not read and that has not all arrived is never waited for: the connection ends
// after the answer, and the answer says so, so that a client does not send its next request into a
// connection being closed.
TEST_F(HttpServerTest, AnAnswerBeforeTheBodyArrivedSaysTheConnectionCloses) {
    start([](Request &, Response &resp) { resp.send(403, "text/plain", "no"); });
    const int fd = connect_to(port_);
    send_text(fd, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
    bool closed = false;
    const std::string got = read_until(fd, "", &closed, 3000);
    EXPECT_NE(got.find("HTTP/1.1 403 Forbidden\r\n"), std::string::npos) << got;
    EXPECT_NE(got.find("\r\nConnection: close\r\n"), std::string::npos) << got;
    EXPECT_TRUE(closed);
    ::close(fd);
}

TEST(HttpServer, RefusesAnAddressItCannotBind) {
    Server first("127.0.0.1", 0, echo);
    try {
        Server second("127.0.0.1", first.port(), echo);
        FAIL() << "two servers bound one port";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(first.port())), std::string::npos) << e.what();
    }
}
