// The browser plugin's Chromium as a way into the machine (docs/security.md, "The browser"): DevTools
// has no authentication, so whoever reaches it drives a browser that reads and writes files as its user.
// Before, Chromium listened on a loopback port of the host's network namespace; a local user (nobody)
// navigated it to file:///root/... and downloaded into root's directories, and a sandbox sharing the
// machine's network read another sandbox's files. Each test attacks one way in. Runs as root and, as
// AsUser.*, as nobody.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "integration/runtimes/runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/http.hpp"
#include "support/proc_file.hpp"
#include "support/socket_holders.hpp"
#include "support/temp_dir.hpp"

namespace at = actionhost::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool running_as_root() { return geteuid() == 0; }

json browse(const std::string &url) {
    return {{"action", "browse"}, {"args", {{"url", url}, {"thought", ""}, {"security_risk", -1}, {"return_axtree", false}}},
            {"timeout", 60.0}};
}

pid_t parent_of(pid_t pid) {
    const std::string stat = at::read_proc_file("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    return ppid;
}

// Every process below `root` (its children, theirs, ...), as the machine's /proc shows them.
std::vector<pid_t> descendants(pid_t root) {
    std::vector<pid_t> all;
    for (const auto &e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") == std::string::npos) all.push_back(std::stoi(name));
    }
    std::vector<pid_t> out;
    for (pid_t p : all) {
        for (pid_t up = parent_of(p), hops = 0; up > 1 && hops < 64; up = parent_of(up), ++hops)
            if (up == root) {
                out.push_back(p);
                break;
            }
    }
    return out;
}

std::vector<pid_t> chromium_below(pid_t root) {
    std::vector<pid_t> out;
    for (pid_t p : descendants(root))
        if (at::read_proc_file("/proc/" + std::to_string(p) + "/cmdline").find("chromium") != std::string::npos) out.push_back(p);
    return out;
}

// An HTTP GET of /json/version on 127.0.0.1:`port`: DevTools answers it with webSocketDebuggerUrl.
bool answers_as_devtools(int port) {
    try {
        at::Http http("127.0.0.1", port, 2.0);
        const auto r = http.get("/json/version");
        return r.body.find("webSocketDebuggerUrl") != std::string::npos || r.body.find("Browser") != std::string::npos;
    } catch (const std::exception &) {
        return false;
    }
}

// Whether a process of uid `uid` (forked from this root test) can connect to the unix socket `path`
// ("@name" for an abstract one).
bool connects_as(uid_t uid, const std::string &path) {
    const pid_t child = fork();
    if (child == 0) {
        if (setgroups(0, nullptr) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) _exit(3);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        socklen_t len = sizeof(sa_family_t);
        if (path[0] == '@') {
            std::memcpy(addr.sun_path + 1, path.data() + 1, std::min(path.size() - 1, sizeof addr.sun_path - 2));
            len += static_cast<socklen_t>(path.size());
        } else {
            std::memcpy(addr.sun_path, path.data(), std::min(path.size(), sizeof addr.sun_path - 1));
            len = sizeof addr;
        }
        const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        _exit(fd >= 0 && connect(fd, reinterpret_cast<sockaddr *>(&addr), len) == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::set<int> loopback_listeners() {
    std::set<int> ports;
    for (const auto &s : at::listening_sockets()) ports.insert(s.port);
    return ports;
}

}  // namespace

// 1. A host started on the machine: after a browse, no process of its browser listens on any port or on
// any abstract socket; no port that opened with the browser answers as DevTools; its named sockets sit
// in a directory no other user can enter (root: `nobody` is refused on each). Before: a DevTools port
// on 127.0.0.1 that nobody used to read root's 0600 files.
TEST(BrowserSurface, DevToolsListensNowhereALocalUserCouldReach) {
    const std::set<int> before = loopback_listeners();
    at::HostOptions o;
    o.api_key = "k" + std::to_string(getpid());
    at::HostProcess host(o);
    {
        std::ofstream page(host.working_dir() + "/index.html");
        page << "<html><body><h1>Hello</h1></body></html>";
    }
    json obs = host.execute(browse("file://" + host.working_dir() + "/index.html"));
    ASSERT_EQ(obs.value("observation", ""), "browse") << obs.dump().substr(0, 2000);
    const std::vector<pid_t> browser = chromium_below(host.pid());
    ASSERT_FALSE(browser.empty()) << "no chromium process below the host";
    // Nothing of the browser listens on TCP.
    EXPECT_TRUE(at::tcp_listeners_held_by(browser).empty());
    for (const auto &l : at::unix_listeners_held_by(browser)) {
        // No abstract socket: those have no permissions at all.
        EXPECT_NE(l.path.rfind('@', 0), 0u) << "an abstract socket of the browser: " << l.path;
        if (l.path.empty() || l.path[0] == '@') continue;
        // A named one lives in a directory only the browser's user may enter.
        struct stat dir{};
        ASSERT_EQ(::stat(fs::path(l.path).parent_path().c_str(), &dir), 0) << l.path;
        EXPECT_EQ(dir.st_mode & 077, 0u) << l.path << " is in a directory others may enter";
        if (running_as_root()) {
            EXPECT_FALSE(connects_as(65534, l.path)) << "nobody connected to " << l.path;
        }
    }
    // Whatever opened on the machine since: none of it is DevTools.
    for (int port : loopback_listeners()) {
        if (before.count(port) || port == host.port()) continue;
        EXPECT_FALSE(answers_as_devtools(port)) << "port " << port << " answers as DevTools";
    }
    // The browser's command line asks for the pipe, never for a port.
    for (pid_t p : browser) {
        const std::string cmdline = at::read_proc_file("/proc/" + std::to_string(p) + "/cmdline");
        EXPECT_EQ(cmdline.find("--remote-debugging-port"), std::string::npos) << cmdline;
    }
}

// 2. A root host with a user to drop to (--username nobody) never runs Chromium as root, and Chromium
// keeps its own sandbox (this machine allows unprivileged user namespaces). As nobody the host has no one
// to drop to: Chromium runs as nobody, sandboxed too.
TEST(BrowserSurface, ChromiumRunsAsTheAgentsUserWithItsOwnSandbox) {
    at::HostOptions o;
    o.api_key = "k" + std::to_string(getpid());
    if (running_as_root()) {
        o.as_current_user = false;
        o.args = {"--username", "nobody", "--user-id", "65534"};
    }
    at::HostProcess host(o);
    json obs = host.execute(browse("about:blank"));
    ASSERT_EQ(obs.value("observation", ""), "browse") << obs.dump().substr(0, 2000);
    const std::vector<pid_t> browser = chromium_below(host.pid());
    ASSERT_FALSE(browser.empty());
    bool saw_browser_process = false;
    for (pid_t p : browser) {
        const std::string status = at::read_proc_file("/proc/" + std::to_string(p) + "/status");
        const size_t uid_line = status.find("\nUid:");
        ASSERT_NE(uid_line, std::string::npos);
        std::istringstream ids(status.substr(uid_line + 5));
        long real = -1, effective = -1;
        ids >> real >> effective;
        EXPECT_EQ(effective, 65534) << "a chromium process runs as uid " << effective;
        const std::string cmdline = at::read_proc_file("/proc/" + std::to_string(p) + "/cmdline");
        if (cmdline.find("--type=") == std::string::npos) {
            saw_browser_process = true;
            EXPECT_EQ(cmdline.find("--no-sandbox"), std::string::npos) << "the browser runs without its own sandbox";
        }
    }
    EXPECT_TRUE(saw_browser_process);
}

// 3. Two sandboxes on the machine's network (`network = true`): the second finds no DevTools endpoint
// anywhere on the machine's loopback while the first one browses. Before: it found the first one's and
// read its agent's files through it.
TEST(BrowserSurface, ASandboxOnTheMachinesNetworkFindsNoOtherSandboxsBrowser) {
    auto with_network = [](actionhost::client::Config &c) {
        c.set("sandbox.network", true);
        c.set("core.enable_browser", true);
    };
    auto a = runtimes_test::start_runtime("sandbox", with_network);
    json obs = a->runtime->execute(browse("about:blank"));
    ASSERT_EQ(obs.value("observation", ""), "browse") << obs.dump().substr(0, 2000);
    auto b = runtimes_test::start_runtime("sandbox", with_network);
    // From inside B: every listening TCP socket of the (shared) network namespace, asked for DevTools.
    const std::string scan =
        "python3 - <<'EOF'\n"
        "import socket\n"
        "found = []\n"
        "for table in ('/proc/net/tcp', '/proc/net/tcp6'):\n"
        "    for line in open(table).read().splitlines()[1:]:\n"
        "        f = line.split()\n"
        "        if f[3] != '0A': continue\n"
        "        port = int(f[1].split(':')[-1], 16)\n"
        "        for host in ('127.0.0.1', '::1'):\n"
        "            try:\n"
        "                s = socket.create_connection((host, port), timeout=1)\n"
        "                s.settimeout(1)\n"
        "                s.sendall(b'GET /json/version HTTP/1.0\\r\\n\\r\\n')\n"
        "                data = s.recv(4096)\n"
        "                s.close()\n"
        "                if b'webSocketDebuggerUrl' in data: found.append(port)\n"
        "            except Exception:\n"
        "                pass\n"
        "print('devtools:', sorted(set(found)))\n"
        "EOF";
    json found = runtimes_test::run(*b->runtime, scan, 120);
    EXPECT_EQ(runtimes_test::exit_code(found), 0) << found.dump();
    EXPECT_NE(found.value("content", "").find("devtools: []"), std::string::npos) << found.value("content", "");
    // Inside A, no process asked for a DevTools port either.
    json ports = runtimes_test::run(*a->runtime, "ps -eo args | grep -c -- '[-]-remote-debugging-port' || true");
    EXPECT_EQ(ports.value("content", ""), "0") << ports.dump();
}

// 4. Inside a sandbox whose agent is not root (run_as_openhands), the browser runs as the agent's user,
// never as the sandbox's root.
TEST(BrowserSurface, InsideASandboxChromiumIsTheAgentsNotRoots) {
    auto s = runtimes_test::start_runtime("sandbox", [](actionhost::client::Config &c) {
        c.set("core.run_as_openhands", true);
        c.set("core.enable_browser", true);
    });
    json obs = s->runtime->execute(browse("about:blank"));
    ASSERT_EQ(obs.value("observation", ""), "browse") << obs.dump().substr(0, 2000);
    json users = runtimes_test::run(*s->runtime, "ps -eo user:32=,args= | grep '[c]hromium' | awk '{print $1}' | sort -u");
    const std::string who = users.value("content", "");
    EXPECT_FALSE(who.empty()) << users.dump();
    EXPECT_EQ(who.find("root"), std::string::npos) << who;
    EXPECT_NE(who.find("openhands"), std::string::npos) << who;
}


// 5. What the host writes into the agent's workspace for the browser — the step's screenshot, a copy of a
// download — never goes through a link the agent planted there (before: written as the host, root in a
// sandbox, wherever the link led), and belongs to the browser's user.
TEST(BrowserSurface, ScreenshotsAndDownloadsNeverGoThroughAPlantedLink) {
    at::TempDir victims("ahsec-victims");
    at::HostOptions o;
    o.api_key = "k" + std::to_string(getpid());
    at::HostProcess host(o);
    const std::string ws = host.working_dir();
    fs::create_symlink(victims.path(), ws + "/.browser_screenshots");
    fs::create_symlink(victims / "stolen.pdf", ws + "/file_1.pdf");
    {
        std::ofstream pdf(ws + "/doc.pdf");
        pdf << "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
               "trailer<</Root 1 0 R>>\n%%EOF\n";
    }
    json obs = host.execute(browse("file://" + ws + "/doc.pdf"));
    // The download is refused rather than written through the link.
    EXPECT_NE(obs.dump().find("could not be copied"), std::string::npos) << obs.dump().substr(0, 1000);
    obs = host.execute(browse("about:blank"));
    ASSERT_EQ(obs.value("observation", ""), "browse") << obs.dump().substr(0, 1000);
    EXPECT_TRUE(fs::is_empty(victims.path())) << "the host wrote through a link the agent planted";
    EXPECT_FALSE(fs::exists(victims / "stolen.pdf"));
    // Without the planted links both land in the workspace as regular files.
    fs::remove(ws + "/.browser_screenshots");
    fs::remove(ws + "/file_1.pdf");
    obs = host.execute(browse("about:blank"));
    const std::string shot = obs["extras"].value("screenshot_path", "");
    ASSERT_FALSE(shot.empty()) << obs.dump().substr(0, 1000);
    struct stat st{};
    ASSERT_EQ(::lstat(shot.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_uid, ::geteuid());
}
