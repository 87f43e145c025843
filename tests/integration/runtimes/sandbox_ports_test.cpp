// Published ports of the `sandbox` runtime (Runtime::publish_port, `ahctl port`, --publish): a TCP
// server inside — with no network at all, or `internet` — answers on the machine at the address a
// publication prints; unpublishing closes it and its connections; OpenHands' app ports are published at
// start; every publication ends with the sandbox; a kept-alive sandbox's publications are shared by every
// client process of the caller. Attacks: the sandbox cannot reach its control or ports sockets; another
// machine user cannot use the control socket; bad requests are refused with a sentence; a paused
// sandbox never stalls its supervisor. Real servers (python3's http.server inside), real sockets; traffic
// only to 127.0.0.1.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime_harness.hpp"
#include <actionhost/client/errors.hpp>

#include "support/free_port.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::client::Runtime;
using nlohmann::json;

namespace {

// "127.0.0.1:41234" → a connected TCP socket, or -1 (refused, or nothing within 3 s).
int connect_to(const std::string &address) {
    const size_t colon = address.rfind(':');
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
    if (inet_pton(AF_INET, address.substr(0, colon).c_str(), &a.sin_addr) != 1) return -1;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// Everything the peer sends until it closes (at most 1 MiB, at most 3 s per read).
std::string read_all(int fd) {
    std::string out;
    char buf[4096];
    for (ssize_t n; out.size() < (1u << 20) && (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
}

// An HTTP/1.0 GET of `path` at `address`: the whole answer, or "" when nothing answers.
std::string http_get(const std::string &address, const std::string &path) {
    const int fd = connect_to(address);
    if (fd < 0) return "";
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: x\r\n\r\n";
    std::string answer;
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) answer = read_all(fd);
    close(fd);
    return answer;
}

// Starts python3's http.server on `port` inside, serving a page that says `word`; waits until it listens.
void serve_inside(Runtime &rt, int port, const std::string &word, const std::string &bind = "0.0.0.0") {
    const std::string dir = "/tmp/www" + std::to_string(port);
    ASSERT_EQ(exit_code(run(rt, "mkdir -p " + dir + " && echo " + word + " > " + dir + "/index.html && (nohup /usr/bin/python3 -m http.server " +
                                    std::to_string(port) + " --bind " + bind + " --directory " + dir + " >/dev/null 2>&1 &)")),
              0);
    const std::string probe = "/usr/bin/python3 -c \"import socket,time\nfor i in range(100):\n  try:\n    socket.create_connection(('" +
                              (bind == "::1" ? std::string("::1") : std::string("127.0.0.1")) + "'," + std::to_string(port) +
                              "),1); break\n  except OSError: time.sleep(0.05)\"";
    ASSERT_EQ(exit_code(run(rt, probe)), 0);
}

std::unique_ptr<StartedRuntime> sandbox(const std::string &network = "none", bool keep = false) {
    return start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.network", network);
        if (keep) c.set("sandbox.keep_runtime_alive", true);
    });
}

}  // namespace

TEST(SandboxPorts, APublishedPortCarriesTrafficBothWaysAndUnpublishingClosesIt) {
    auto s = sandbox();
    serve_inside(*s->runtime, 8000, "page-from-inside");
    const std::string at = s->runtime->publish_port(8000);
    ASSERT_EQ(at.rfind("127.0.0.1:", 0), 0u) << at;
    EXPECT_NE(http_get(at, "/index.html").find("page-from-inside"), std::string::npos);
    // A second connection while the first is held open.
    const int held = connect_to(at);
    ASSERT_GE(held, 0);
    EXPECT_NE(http_get(at, "/").find("page-from-inside"), std::string::npos);
    // Listed, with the app ports published at start.
    std::map<int, std::string> listed;
    for (const auto &p : s->runtime->published_ports()) listed[p.port] = p.address;
    EXPECT_EQ(listed[8000], at);
    for (int app : {50000, 55000, 41000}) EXPECT_EQ(listed.count(app), 1u) << app;
    // Unpublished: the machine's port refuses, the connection it carried is closed.
    s->runtime->unpublish_port(8000);
    EXPECT_EQ(connect_to(at), -1);
    pollfd p{held, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 3000), 1);
    char byte;
    EXPECT_LE(read(held, &byte, 1), 0);
    close(held);
    EXPECT_THROW(s->runtime->unpublish_port(8000), std::invalid_argument);
}

TEST(SandboxPorts, OpenHandsAppPortsAreSetInsideAndReachable) {
    auto s = sandbox();
    EXPECT_EQ(run(*s->runtime, "echo $APP_PORT_1 $APP_PORT_2 $VSCODE_PORT").value("content", ""), "50000 55000 41000");
    serve_inside(*s->runtime, 50000, "app-one");
    std::string at;
    for (const auto &p : s->runtime->published_ports())
        if (p.port == 50000) at = p.address;
    ASSERT_FALSE(at.empty());
    EXPECT_NE(http_get(at, "/").find("app-one"), std::string::npos);
}

TEST(SandboxPorts, AServerOnTheIpv6LoopbackOnlyIsReachedToo) {
    auto s = sandbox();
    serve_inside(*s->runtime, 8001, "six", "::1");
    EXPECT_NE(http_get(s->runtime->publish_port(8001), "/").find("six"), std::string::npos);
}

TEST(SandboxPorts, WorksWithTheInternetModeAndAChosenMachinePort) {
    if (std::system("command -v pasta >/dev/null 2>&1") != 0) GTEST_SKIP() << "no pasta (Debian's passt)";
    auto s = sandbox("internet");
    serve_inside(*s->runtime, 8000, "via-internet-mode");
    // A free machine port, then asked for by number.
    const int machine_port = actionhost::testing::free_port();
    const std::string at = s->runtime->publish_port(8000, machine_port);
    EXPECT_EQ(at, "127.0.0.1:" + std::to_string(machine_port));
    EXPECT_NE(http_get(at, "/").find("via-internet-mode"), std::string::npos);
}

TEST(SandboxPorts, BadRequestsAreRefusedWithASentenceAndChangeNothing) {
    auto s = sandbox();
    Runtime &rt = *s->runtime;
    const std::string at = rt.publish_port(8000);
    const size_t before = rt.published_ports().size();
    EXPECT_THROW(rt.publish_port(8000), std::invalid_argument);  // already published
    EXPECT_THROW(rt.publish_port(0), std::invalid_argument);
    EXPECT_THROW(rt.publish_port(70000), std::invalid_argument);
    EXPECT_THROW(rt.publish_port(8002, -1), std::invalid_argument);
    try {
        rt.publish_port(8002, 0, "not-an-address");
        ADD_FAILURE() << "a name was taken for an address";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("not an IP address"), std::string::npos) << e.what();
    }
    // The machine's port already taken (by the first publication): a RuntimeError naming it.
    const int taken = std::stoi(at.substr(at.rfind(':') + 1));
    try {
        rt.publish_port(8003, taken);
        ADD_FAILURE() << "a taken machine port was published twice";
    } catch (const actionhost::client::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(taken)), std::string::npos) << e.what();
    }
    EXPECT_EQ(rt.published_ports().size(), before);
}

TEST(SandboxPorts, EveryPublicationEndsWithTheSandbox) {
    std::string at;
    {
        auto s = sandbox();
        serve_inside(*s->runtime, 8000, "soon-gone");
        at = s->runtime->publish_port(8000);
        ASSERT_NE(http_get(at, "/").find("soon-gone"), std::string::npos);
        s->runtime->close();
    }
    EXPECT_EQ(connect_to(at), -1);
}

// With the machine's network the sandbox's ports are the machine's: publishing is refused with the reason
// (it would only relay to the machine's own loopback services).
TEST(SandboxPorts, NothingIsPublishedForASandboxOnTheMachinesNetwork) {
    auto s = sandbox("host");
    try {
        s->runtime->publish_port(8000);
        ADD_FAILURE() << "a port was published with network = host";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("the machine's own"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(s->runtime->published_ports().empty());  // no app ports either: the machine's are the sandbox's
}

// Past the cap on connections carried at once, a new one is closed at once and the rest keep working:
// the control socket still answers and a fresh connection serves once others closed.
TEST(SandboxPorts, ConnectionsAreCappedAndTheSandboxStillAnswers) {
    auto s = sandbox();
    serve_inside(*s->runtime, 8000, "capped");
    const std::string at = s->runtime->publish_port(8000);
    std::vector<int> held;
    for (int i = 0; i < 300; ++i) {
        const int fd = connect_to(at);
        if (fd >= 0) held.push_back(fd);
    }
    // The ones past the cap are closed by the other end: a read sees the end at once (one poll over all,
    // up to 10 s for the closes to arrive).
    size_t closed = 0;
    std::vector<pollfd> fds;
    for (int fd : held) fds.push_back({fd, POLLIN, 0});
    for (int round = 0; round < 50 && closed + 256 < held.size(); ++round) {
        if (poll(fds.data(), fds.size(), 200) <= 0) continue;
        for (auto &p : fds) {
            char byte;
            if (p.fd >= 0 && (p.revents & (POLLIN | POLLHUP)) && read(p.fd, &byte, 1) == 0) {
                ++closed;
                p.fd = -p.fd - 1;  // counted once; poll skips negative descriptors
            }
        }
    }
    EXPECT_GE(closed + 256, held.size()) << closed << " of " << held.size() << " closed";
    EXPECT_GE(s->runtime->published_ports().size(), 4u);
    for (int fd : held) close(fd);
    bool served = false;
    for (int i = 0; i < 20 && !served; ++i, usleep(100000)) served = http_get(at, "/").find("capped") != std::string::npos;
    EXPECT_TRUE(served);
}

// A kept-alive sandbox: a second client (another Runtime of the same session, as a later `ahctl`) sees
// the first one's publication, adds its own and removes the first; the sandbox's web view is reached
// through its host's published port, signing in with the key.
TEST(SandboxPorts, AKeptAliveSandboxsPublicationsAreSharedByItsClients) {
    auto s = sandbox("none", true);
    serve_inside(*s->runtime, 8000, "shared");
    const std::string at = s->runtime->publish_port(8000);
    auto options = test_runtime_options("sandbox", s->workspace->path(), s->state->path());
    options.session_id = s->runtime->session_id();
    options.config.set("sandbox.keep_runtime_alive", true);
    auto second = Runtime::create(options);
    second->connect();
    bool seen = false;
    for (const auto &p : second->published_ports()) seen = seen || (p.port == 8000 && p.address == at);
    EXPECT_TRUE(seen);
    const std::string ui = second->web_view_url();
    ASSERT_EQ(ui.rfind("http://127.0.0.1:", 0), 0u) << ui;
    const std::string host_at = ui.substr(7, ui.size() - 7 - 3);
    EXPECT_EQ(second->web_view_url(), ui);  // published once
    EXPECT_NE(http_get(host_at, "/ui").find("login.js"), std::string::npos);  // the sign-in page, without the key
    EXPECT_NE(http_get(host_at, "/ui/assets/login.js").find("200 OK"), std::string::npos);
    EXPECT_NE(http_get(host_at, "/ui/files").find("403"), std::string::npos);  // nothing else without it
    second->unpublish_port(8000);
    second->close();
    EXPECT_EQ(connect_to(at), -1);
    s->runtime->stop_kept_alive();
    EXPECT_EQ(connect_to(host_at), -1);
}

// Neither the control socket nor pid 1's ports socket is anywhere inside; root inside finds no way to
// them, and nothing of the run directory.
TEST(SandboxPorts, TheSandboxCannotReachItsControlOrPortsSocket) {
    auto s = sandbox();
    const std::string probe = R"(/usr/bin/python3 -c "
import socket, glob, sys
found = [p for p in glob.glob('/tmp/ah-sandbox-*/*.sock') + glob.glob('/run/actionhost/*.sock')]
for name in ['control.sock', 'ports.sock']:
    for p in found:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(p); print('reached', p); sys.exit(1)
        except OSError: pass
print('none', len(found))
")";
    const json obs = run(*s->runtime, probe);
    EXPECT_EQ(exit_code(obs), 0) << obs.dump();
    EXPECT_EQ(obs.value("content", ""), "none 0");
}

// Another user of the machine cannot ask the sandbox anything, even handed the path.
TEST(SandboxPorts, AnotherMachineUserCannotUseTheControlSocket) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
    auto s = sandbox();
    const std::string url = s->runtime->url();  // unix://<run dir>/api.sock
    ASSERT_EQ(url.rfind("unix://", 0), 0u);
    const std::string path = url.substr(7, url.rfind('/') - 7) + "/control.sock";
    const pid_t child = fork();
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
        const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) _exit(0);  // refused: as it must be
        const char request[] = "{\"op\":\"publish\",\"port\":22}\n";
        if (write(fd, request, sizeof request - 1) < 0) _exit(0);
        char buf[256];
        _exit(read(fd, buf, sizeof buf) > 0 ? 1 : 0);  // an answer: the sandbox served a stranger
    }
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_LE(s->runtime->published_ports().size(), 3u);  // the app ports only
}

// Raw requests on the control socket, as a careless or hostile client of the same user would send them.
TEST(SandboxPorts, TheControlSocketAnswersGarbageWithAnErrorAndKeepsServing) {
    auto s = sandbox();
    const std::string url = s->runtime->url();
    const std::string path = url.substr(7, url.rfind('/') - 7) + "/control.sock";
    auto ask = [&](const std::string &bytes) {
        const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        timeval tv{6, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
            close(fd);
            return std::string("(no connection)");
        }
        (void)!write(fd, bytes.data(), bytes.size());
        const std::string answer = read_all(fd);
        close(fd);
        return answer;
    };
    EXPECT_NE(ask("not json\n").find("\"ok\":false"), std::string::npos);
    EXPECT_NE(ask("{\"op\":\"publish\",\"port\":\"8000\"}\n").find("whole number"), std::string::npos);
    EXPECT_NE(ask("{\"op\":\"publish\",\"port\":8000,\"address\":7}\n").find("\"ok\":false"), std::string::npos);
    EXPECT_NE(ask("{\"op\":\"shutdown\"}\n").find("unknown request"), std::string::npos);
    EXPECT_EQ(ask(std::string(5000, 'x')), "");  // more than a request may be: dropped without an answer
    // Still serving, nothing published by any of it.
    EXPECT_EQ(s->runtime->published_ports().size(), 3u);
    EXPECT_EQ(exit_code(run(*s->runtime, "true")), 0);
}

// A paused (frozen) sandbox's pid 1 accepts nothing: a connection to a published port fails at once
// instead of stalling the supervisor, which still answers and still ends the sandbox.
TEST(SandboxPorts, APausedSandboxNeverStallsItsSupervisor) {
    if (geteuid() != 0) GTEST_SKIP() << "the cgroup freezer is a root caller's";
    auto s = sandbox();
    serve_inside(*s->runtime, 8000, "after-resume");
    const std::string at = s->runtime->publish_port(8000);
    s->runtime->pause();
    std::vector<int> held;
    for (int i = 0; i < 300; ++i) {  // more than pid 1's backlog (256)
        const int fd = connect_to(at);
        if (fd >= 0) held.push_back(fd);
    }
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_GE(s->runtime->published_ports().size(), 4u);  // the supervisor answers while frozen
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
    for (int fd : held) close(fd);
    s->runtime->resume();
    // The connections queued meanwhile reach the server first (python's backlog of 5 drops SYNs, which
    // wait for their retries) and hold the connection cap until then: the port serves again within seconds.
    bool served = false;
    for (int i = 0; i < 60 && !served; ++i, usleep(250000)) served = http_get(at, "/").find("after-resume") != std::string::npos;
    EXPECT_TRUE(served);
}
