// The host's local surface attacked as another user of the machine (or a proxy's peer) would: the file
// viewer, download names, request framing and idle connections. Each test failed on the host of main at
// 3cc5d52 (Poco's server, an open viewer) and must hold for a host run as root and as nobody.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Poco/URI.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/host_process.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
namespace fs = std::filesystem;

namespace {

int connect_to(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        if (fd >= 0) ::close(fd);
        return -1;
    }
    return fd;
}

// Sends `request` as it is and reads until the server closes the connection or `quiet_ms` pass with
// nothing more (so a kept-alive connection is told apart from a closed one by `closed`).
struct RawExchange {
    std::string text;
    bool closed = false;
};
RawExchange raw_exchange(int port, const std::string &request, int quiet_ms = 1500) {
    RawExchange out;
    const int fd = connect_to(port);
    if (fd < 0) return out;
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buf[65536];
    for (int round = 0; round < 10000; ++round) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, quiet_ms) <= 0) break;
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            out.closed = true;
            break;
        }
        out.text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
}

std::string status_line(const std::string &response) { return response.substr(0, response.find("\r\n")); }

// The head of each response in `text` (several when a connection answered several requests).
size_t count_responses(const std::string &text) {
    size_t n = 0;
    for (size_t at = text.find("HTTP/1.1 "); at != std::string::npos; at = text.find("HTTP/1.1 ", at + 1)) ++n;
    return n;
}

std::string url_encoded(const std::string &s) {
    std::string out;
    Poco::URI::encode(s, "?#[]@!$&'()*+,;=/%:", out);
    return out;
}

std::string viewer_url_of(const std::string &url_file) {
    for (int i = 0; i < 400; ++i) {
        if (fs::exists(url_file)) {
            const std::string url = read_file(url_file);
            if (!url.empty()) return url;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return "";
}

int port_of(const std::string &url) {
    std::smatch m;
    return std::regex_search(url, m, std::regex("localhost:([0-9]+)")) ? std::stoi(m[1].str()) : 0;
}

// The floods below open thousands of connections: this process's limit of open files is raised to the
// hard limit first (before the host starts, which inherits it). "" when that allows `needed`, else why
// the test cannot run on this machine.
std::string raise_open_files(rlim_t needed) {
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0) {
        ADD_FAILURE() << "getrlimit: " << std::strerror(errno);
        return "getrlimit failed";
    }
    if (files.rlim_max < needed) return "this machine allows " + std::to_string(files.rlim_max) + " open files";
    files.rlim_cur = files.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &files) != 0) {
        ADD_FAILURE() << "setrlimit: " << std::strerror(errno);
        return "setrlimit failed";
    }
    return "";
}

// `count` connections to `port`, connection i sending `head(i)` with `flags` (nothing when it is
// empty), left open for the caller to close. Stops at the first refused connection (a failure).
std::vector<int> open_flood(int port, int count, const std::function<std::string(int)> &head, int flags = MSG_NOSIGNAL) {
    std::vector<int> fds;
    for (int i = 0; i < count; ++i) {
        const int fd = connect_to(port);
        if (fd < 0) {
            ADD_FAILURE() << "connection " << i << " refused";
            break;
        }
        fds.push_back(fd);
        const std::string h = head(i);
        if (!h.empty()) (void)!::send(fd, h.data(), h.size(), flags);
    }
    return fds;
}

// 20 `GET /alive` on fresh connections, each timed in ms; empty (after a failure) when one was not
// answered 200.
std::vector<double> alive_times_ms(int port) {
    std::vector<double> ms;
    for (int i = 0; i < 20; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        RawExchange r = raw_exchange(port, "GET /alive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5000);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (status_line(r.text) != "HTTP/1.1 200 OK") {
            ADD_FAILURE() << "try " << i << ": " << status_line(r.text);
            return {};
        }
    }
    return ms;
}

// The /alive answers of a flood test (alive_times_ms: empty when one did not come within 5 s), and their
// median stays under `bound_ms` (times kSanitizerTimeFactor under ASan). The median, not the slowest:
// the starvation these tests guard against delayed every request by seconds, while one slow try on a
// loaded machine is the scheduler's.
void expect_alive_fast(std::vector<double> ms, double bound_ms, const std::string &what) {
    ASSERT_FALSE(ms.empty());
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    EXPECT_LT(median, bound_ms * kSanitizerTimeFactor)
        << "/alive " << what << ": median " << median << " ms, slowest " << ms.back() << " ms";
}

}  // namespace

// 7. The file viewer: another local user reaches its loopback port, and it runs as the host's user
// (root, usually). On main it served any file named .png/.pdf to anyone, through links too:
// `ln -s /etc/shadow /tmp/s.png` then GET /view?path=/tmp/s.png read the shadow file.
TEST(HostSurface, TheFileViewerAnswersOnlyItsCapabilityHolder) {
    TempDir dir("ahsec-viewer");
    // A secret of the host's user, as /etc/shadow is root's: mode 0600 in a 0700 directory.
    fs::create_directories(dir / "private");
    fs::permissions(dir / "private", fs::perms::owner_all);
    write_file(dir / "private/secret", "SECRET-MARKER-7731");
    fs::permissions(dir / "private/secret", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_symlink(dir / "private/secret", dir / "s.png");

    HostOptions o;
    o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir / "oh-server-url";
    measure_own_memory_under_asan(o);
    HostProcess host(o);
    const std::string url = viewer_url_of(dir / "oh-server-url");
    ASSERT_FALSE(url.empty()) << host.log();
    const int port = port_of(url);
    // The URL file is readable by its owner alone (the session's user), who may view files.
    struct stat st{};
    ASSERT_EQ(::stat((dir / "oh-server-url").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << std::oct << st.st_mode;
    EXPECT_EQ(st.st_uid, ::geteuid());

    // Another user knows the port (any loopback port can be found) but not the capability.
    const std::string attack = "GET /view?path=" + url_encoded(dir / "s.png") + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    RawExchange r = raw_exchange(port, attack);
    EXPECT_EQ(status_line(r.text), "HTTP/1.1 403 Forbidden") << r.text;
    EXPECT_EQ(r.text.find("SECRET-MARKER"), std::string::npos);
    // A guessed capability is no better, nor a prefix of the real one.
    const std::string cap = url.substr(url.rfind('/'));
    for (const std::string &guess : {std::string("/00000000000000000000000000000000"), cap.substr(0, 16)}) {
        r = raw_exchange(port, "GET " + guess + "/view?path=" + url_encoded(dir / "s.png") + " HTTP/1.1\r\nHost: x\r\n\r\n");
        EXPECT_NE(status_line(r.text), "HTTP/1.1 200 OK") << guess;
        EXPECT_EQ(r.text.find("SECRET-MARKER"), std::string::npos) << guess;
    }
    // The holder may view; a FIFO named .png is refused at once instead of holding a thread forever.
    ASSERT_EQ(::mkfifo((dir / "f.png").c_str(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();
    r = raw_exchange(port, "GET " + cap + "/view?path=" + url_encoded(dir / "f.png") + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_line(r.text), "HTTP/1.1 403 Forbidden") << r.text;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// 7b. With the session's roots set, a link that leaves them is not followed, even for the holder.
TEST(HostSurface, TheFileViewerFollowsNoLinkOutOfTheRoots) {
    TempDir dir("ahsec-roots");
    fs::create_directories(dir / "work");
    write_file(dir / "outside.png", "OUTSIDE-MARKER-5520");
    fs::create_symlink(dir / "outside.png", dir / "work/in.png");
    write_file(dir / "work/ok.png", "INSIDE-MARKER");
    HostOptions o;
    o.working_dir = dir / "work";
    o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir / "oh-server-url";
    o.env["ACTIONHOST_EDITOR_ROOTS"] = dir / "work";
    HostProcess host(o);
    const std::string url = viewer_url_of(dir / "oh-server-url");
    ASSERT_FALSE(url.empty()) << host.log();
    const std::string cap = url.substr(url.rfind('/'));
    RawExchange r = raw_exchange(port_of(url), "GET " + cap + "/view?path=" + url_encoded(dir / "work/in.png") + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_line(r.text), "HTTP/1.1 403 Forbidden") << r.text;
    EXPECT_EQ(r.text.find("T1VUU0lERS1NQVJLRVIt"), std::string::npos) << "the outside file's base64 was served";
    r = raw_exchange(port_of(url), "GET " + cap + "/view?path=" + url_encoded(dir / "work/ok.png") + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_line(r.text), "HTTP/1.1 200 OK") << r.text;
}

// 9. A directory name is the agent's to choose; downloading it must not let it write response headers.
// On main `a\r\nX-Injected: 1` became a header line and a `"` ended the quoted file name.
TEST(HostSurface, DownloadNamesCannotWriteHeaders) {
    HostProcess host;
    const std::string base = host.working_dir();
    struct Case {
        std::string name, encoded;
    } cases[] = {
        {"a\r\nX-Injected: 1", "a%0D%0AX-Injected%3A%201.zip"},
        {"q\"uote\\d", "q%22uote%5Cd.zip"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf%C3%A9%20%E2%82%AC.zip"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.encoded);
        fs::create_directories(fs::path(base) / c.name);
        write_file((fs::path(base) / c.name / "f.txt").string(), "x");
        const std::string target = "/download_files?path=" + url_encoded(base + "/" + c.name);
        RawExchange r = raw_exchange(host.port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        const std::string head = r.text.substr(0, r.text.find("\r\n\r\n") + 2);
        ASSERT_EQ(status_line(head), "HTTP/1.1 200 OK") << head;
        EXPECT_EQ(head.find("\r\nX-Injected"), std::string::npos) << head;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(head, m, std::regex("\r\nContent-Disposition: ([^\r\n]*)\r\n"))) << head;
        const std::string value = m[1].str();
        EXPECT_NE(value.find("filename*=UTF-8''" + c.encoded), std::string::npos) << value;
        // The quoted fallback holds no quote, backslash or control character of the name.
        const std::string fallback = value.substr(value.find("filename=\"") + 10);
        EXPECT_EQ(fallback.find('"'), fallback.find("\"; filename*")) << value;
        EXPECT_EQ(fallback.find('\\'), std::string::npos) << value;
        for (unsigned char ch : value) EXPECT_TRUE(ch >= 0x20 && ch < 0x7F) << value;
    }
}

// 10. Framing a proxy and this server could read differently ("request smuggling"), and lengths that
// are not lengths: each is refused with 400 and the connection closed, so whatever follows is never
// taken as a request. On main two Content-Length values, or one with chunked, were accepted and the
// smuggled request answered; Content-Length: -1 answered 500. Obsolete line folding (RFC 9112 §5.2
// lets a server refuse it) was unfolded by the first common/http, the smuggled request answered.
TEST(HostSurface, AmbiguousFramingIsRefusedAndTheConnectionClosed) {
    HostProcess host;
    const std::string smuggled = "GET /alive HTTP/1.1\r\nHost: x\r\n\r\n";
    const std::string shapes[] = {
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 37\r\n\r\n{}" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length: 2, 37\r\n\r\n{}" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length : 2\r\n\r\n{}" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n" + smuggled,
        // Obsolete line folding: a proxy that reads the folded line as a header of its own sees a body
        // of 33 bytes (the smuggled request); a parser that unfolds it sees no body at all.
        "POST /list_files HTTP/1.1\r\nHost: x\r\nX-A: b\r\n Content-Length: 33\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\tTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /list_files HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n 2\r\n\r\n{}" + smuggled,
    };
    for (const auto &shape : shapes) {
        SCOPED_TRACE(shape.substr(0, shape.find("\r\n\r\n")));
        RawExchange r = raw_exchange(host.port(), shape);
        EXPECT_EQ(status_line(r.text), "HTTP/1.1 400 Bad Request") << r.text;
        EXPECT_TRUE(r.closed) << "the connection stayed open after a refused framing";
        EXPECT_EQ(count_responses(r.text), 1u) << "the smuggled request was answered:\n" << r.text;
    }
    // The host still answers, and an honest chunked body works.
    RawExchange ok = raw_exchange(host.port(), "POST /list_files HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                               "Content-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    EXPECT_EQ(status_line(ok.text), "HTTP/1.1 200 OK") << ok.text;
}

// 10b. Status lines say what their code means (on main every error line said "OK").
TEST(HostSurface, StatusLinesCarryTheirReasonPhrase) {
    HostOptions o;
    o.api_key = "reason-key";
    HostProcess host(o);
    struct Case {
        std::string request, line;
    } cases[] = {
        {"GET /list_files HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 403 Forbidden"},
        {"GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Session-API-Key: reason-key\r\n\r\n", "HTTP/1.1 404 Not Found"},
        {"DELETE /alive HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
        {"POST /execute_action HTTP/1.1\r\nHost: x\r\nX-Session-API-Key: reason-key\r\nContent-Length: 3\r\n\r\n{x}",
         "HTTP/1.1 422 Unprocessable Entity"},
        {"GET /alive HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK"},
    };
    for (const auto &c : cases) EXPECT_EQ(status_line(raw_exchange(host.port(), c.request).text), c.line) << c.request;
}

// 11. Connections that are only open — which anyone who reaches the port may make, key or not — must
// not starve the server. On main ~530 idle connections left no thread for /alive.
TEST(HostSurface, TwoThousandIdleConnectionsLeaveAliveFast) {
    if (const std::string why = raise_open_files(2200); !why.empty()) GTEST_SKIP() << why;
    HostProcess host;
    // Half of them begin a request header and never finish it (slowloris).
    std::vector<int> idle = open_flood(host.port(), 2000, [](int i) { return i % 2 == 1 ? "GET /alive HTTP/1.1\r\nHost:" : ""; });
    ASSERT_EQ(idle.size(), 2000u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the server take them all in
    expect_alive_fast(alive_times_ms(host.port()), 100.0, "with 2000 idle connections");
    for (int fd : idle) ::close(fd);
    // Requests on a kept-alive connection still work afterwards.
    Http http("127.0.0.1", host.port());
    EXPECT_EQ(http.get("/alive").status, 200);
    EXPECT_EQ(http.get("/alive").status, 200);
}

// 11b. A connection opened and left silent is closed by the server after its idle time, and a header
// begun and never finished after the header time: neither holds anything for long.
TEST(HostSurface, SilentConnectionsAreClosed) {
    HostProcess host;
    const int silent = connect_to(host.port());
    ASSERT_GE(silent, 0);
    pollfd p{silent, POLLIN, 0};
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(::poll(&p, 1, 20000), 1) << "the server kept a silent connection for 20 s";
    char c;
    EXPECT_EQ(::recv(silent, &c, 1, 0), 0);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
    ::close(silent);
}

// 11c. A request that announces a body and never sends it, answered without reading it (a 403 for want
// of the key, or /alive): no key is needed to send one. The server used to wait on the handler's thread
// for the rest of the body (up to 300 s per byte), so 512 of them — the handler threads — left none for
// /alive. What was not read when the answer is sent must cost no thread.
TEST(HostSurface, BodiesNeverSentHoldNoThread) {
    if (const std::string why = raise_open_files(800); !why.empty()) GTEST_SKIP() << why;
    HostOptions o;
    o.api_key = "unread-body-key";
    HostProcess host(o);
    std::vector<int> stalled = open_flood(host.port(), 600, [](int i) {
        return i % 2 == 0 ? "POST /execute_action HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"
                          : "GET /alive HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n";
    });
    ASSERT_EQ(stalled.size(), 600u);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // every one answered (or waiting its turn)
    expect_alive_fast(alive_times_ms(host.port()), 100.0, "with 600 bodies never sent");
    // Each stalled request had its answer, and its connection ends (the rest of its body cannot be
    // told from a next request).
    char buf[4096];
    const ssize_t n = ::recv(stalled[0], buf, sizeof buf, MSG_DONTWAIT);
    ASSERT_GT(n, 0);
    EXPECT_EQ(status_line(std::string(buf, static_cast<size_t>(n))), "HTTP/1.1 403 Forbidden");
    pollfd p{stalled[1], POLLIN, 0};
    bool closed = false;
    for (int round = 0; round < 10 && !closed && ::poll(&p, 1, 1000) == 1; ++round) closed = ::recv(stalled[1], buf, sizeof buf, 0) == 0;
    EXPECT_TRUE(closed) << "a connection with an unread body was kept";
    for (int fd : stalled) ::close(fd);
}

// 7c. The agent holds the viewer's capability and may view a 64 MiB file: the page inlines it as base64.
// Built whole, the page cost ~185 MB per view (the base64, the page, the response, each a copy): 16 views
// at once grew the host to 3 GB, enough for the OOM killer of a sandbox to pick the host. The page is
// encoded as it is sent.
TEST(HostSurface, TheFileViewerKeepsNoFileInMemory) {
    TempDir dir("ahsec-viewmem");
    write_file(dir / "big.png", std::string(48u << 20, 'x'));
    HostOptions o;
    o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir / "oh-server-url";
    measure_own_memory_under_asan(o);
    HostProcess host(o);
    const std::string url = viewer_url_of(dir / "oh-server-url");
    ASSERT_FALSE(url.empty()) << host.log();
    const std::string request = "GET " + url.substr(url.rfind('/')) + "/view?path=" + url_encoded(dir / "big.png") +
                                " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    auto peak_kib = [&] {
        const std::string status = read_file("/proc/" + std::to_string(host.pid()) + "/status");
        std::smatch m;
        return std::regex_search(status, m, std::regex("VmHWM:\\s+([0-9]+) kB")) ? std::stol(m[1].str()) : -1L;
    };
    const long before = peak_kib();
    ASSERT_GT(before, 0);
    std::vector<std::thread> views;
    std::vector<std::string> heads(4);
    std::vector<size_t> sizes(4, 0);
    // Once, here: std::regex compiled on several threads at once races in libstdc++'s ctype cache (TSan).
    const int port = port_of(url);
    for (size_t i = 0; i < heads.size(); ++i)
        views.emplace_back([&, i] {
            const int fd = connect_to(port);
            if (fd < 0) return;
            (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
            char buf[65536];
            for (int round = 0; round < 100000; ++round) {
                pollfd p{fd, POLLIN, 0};
                if (::poll(&p, 1, 30000) <= 0) break;
                const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n <= 0) break;
                if (heads[i].size() < 200) heads[i].append(buf, static_cast<size_t>(std::min<ssize_t>(n, 200)));
                sizes[i] += static_cast<size_t>(n);
            }
            ::close(fd);
        });
    for (auto &t : views) t.join();
    for (size_t i = 0; i < heads.size(); ++i) {
        EXPECT_EQ(status_line(heads[i]), "HTTP/1.1 200 OK") << i;
        EXPECT_GT(sizes[i], (48u << 20) / 3 * 4) << "view " << i << " did not carry the whole file";
    }
    const long grown_mib = (peak_kib() - before) >> 10;
    EXPECT_LT(grown_mib, 64) << "4 views of a 48 MiB file grew the host's peak memory by " << grown_mib << " MiB";
}

// 11e. Headers made of thousands of tiny fields ("a:"), from 2 000 connections at once, no key needed. The
// parser builds every field of what has arrived before any limit is checked: ~3 ms of the event loop
// per 64 KB header, so /alive waited 3-6 s behind them. The lines are counted as they arrive instead.
TEST(HostSurface, HeadersOfTinyFieldsLeaveAliveFast) {
    if (const std::string why = raise_open_files(2200); !why.empty()) GTEST_SKIP() << why;
    HostProcess host;
    std::string header = "GET /alive HTTP/1.1\r\n";
    for (int i = 0; i < 16000; ++i) header += "a:\r\n";
    std::vector<int> senders = open_flood(host.port(), 2000, [&](int) { return header; }, MSG_NOSIGNAL | MSG_DONTWAIT);
    ASSERT_EQ(senders.size(), 2000u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // The stall this guards against was 3-6 s per request.
    expect_alive_fast(alive_times_ms(host.port()), 250.0, "behind 2000 headers of tiny fields");
    // Each was refused for its number of fields.
    char buf[256];
    const ssize_t n = ::recv(senders[0], buf, sizeof buf, 0);
    ASSERT_GT(n, 0);
    EXPECT_EQ(status_line(std::string(buf, static_cast<size_t>(n))), "HTTP/1.1 431 Request Header Fields Too Large");
    for (int fd : senders) ::close(fd);
}

namespace {

// Every process below `root` (children, theirs, ...), read from the machine's /proc.
std::vector<pid_t> processes_below(pid_t root) {
    std::map<pid_t, pid_t> parent;
    for (const auto &e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(e.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(text.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        parent[std::stoi(name)] = ppid;
    }
    std::vector<pid_t> out;
    for (const auto &[pid, ppid] : parent) {
        pid_t up = ppid;
        for (int hops = 0; up > 1 && hops < 64 && up != root; ++hops) up = parent.count(up) ? parent[up] : 0;
        if (up == root) out.push_back(pid);
    }
    return out;
}

std::string environment_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

// 12. The session key in the environment of what the host starts: the agent's user reads its own
// processes' /proc/PID/environ, and a shell, a kernel or a browser started with the key could then send
// the host a `write` it performs as root. Before: the IPython kernel and Chromium inherited it, and the
// host's own initial environment (what /proc/PID/environ shows) kept it.
TEST(HostSurface, TheSessionKeyIsInNoProcessesEnvironment) {
    HostOptions o;
    o.api_key = "KEY-MARKER-" + std::to_string(::getpid()) + "-x9f";
    o.args = {"--plugins", "jupyter"};
    HostProcess host(o);
    const nlohmann::json cell = host.execute({{"action", "run_ipython"}, {"args", {{"code", "print(6*7)"}}}});
    EXPECT_NE(cell.value("content", "").find("42"), std::string::npos) << cell.dump();
    const nlohmann::json page = host.execute({{"action", "browse"}, {"args", {{"url", "about:blank"}}}, {"timeout", 60.0}});
    EXPECT_EQ(page.value("observation", ""), "browse") << page.dump().substr(0, 500);
    EXPECT_EQ(host.run("sleep 30 &").value("observation", ""), "run");
    // The host itself, and everything below it: shells, the kernel, the browser's processes.
    std::vector<pid_t> all = processes_below(host.pid());
    all.push_back(host.pid());
    EXPECT_GE(all.size(), 4u);
    for (pid_t p : all) {
        EXPECT_EQ(environment_of(p).find(o.api_key), std::string::npos)
            << "the key is in the environment of pid " << p << " (" << read_file("/proc/" + std::to_string(p) + "/comm") << ")";
    }
    // The key still guards the host.
    EXPECT_EQ(host.run("echo still").value("content", ""), "still");
}

// 13. A stopped host leaves no /tmp/oh-server-url naming a server that is gone — unless another host has
// written its own URL there since, which is left alone.
TEST(HostSurface, AStoppedHostLeavesNoUrlFile) {
    TempDir dir("ahsec-url");
    {
        HostOptions o;
        o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir / "oh-server-url";
        HostProcess host(o);
        ASSERT_TRUE(fs::exists(dir / "oh-server-url")) << host.log();
        EXPECT_EQ(host.stop(), 0);
    }
    EXPECT_FALSE(fs::exists(dir / "oh-server-url"));
    {
        HostOptions o;
        o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir / "oh-server-url";
        HostProcess host(o);
        write_file(dir / "oh-server-url", "http://localhost:1/another-hosts-url");
        host.stop();
    }
    EXPECT_EQ(read_file(dir / "oh-server-url"), "http://localhost:1/another-hosts-url");
}
