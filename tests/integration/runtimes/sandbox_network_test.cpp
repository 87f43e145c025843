// `sandbox.network = "internet"`: the sandbox reaches a test host (198.51.100.2, TEST-NET-2, in a network
// namespace made here behind a veth pair) and never the machine: not its loopback services, not its own
// address on an interface (198.51.100.1, the machine's end of that pair), not its abstract unix sockets,
// not link-local metadata or private ranges. The egress policy's allow and deny lists by CIDR. Root
// inside cannot take the filter away. Real pasta, real nftables; traffic only to 127.0.0.0/8 and the
// namespace the test made.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <map>
#include <string>

#include <actionhost/client/errors.hpp>
#include <actionhost/common/process_state.hpp>

#include "network_test_host.hpp"
#include "runtime_harness.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::client::Runtime;
using nlohmann::json;

namespace {

int sh(const std::string &command) {
    const int status = std::system((command + " >/dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


// What bash inside says when it opens a TCP connection: "open" or its error.
std::string tcp_from_inside(Runtime &rt, const std::string &address, int port) {
    return run(rt, "(exec 3<>/dev/tcp/" + address + "/" + std::to_string(port) + " && echo open) 2>&1 | tail -1", 30).value("content", "");
}

// The processes whose parent is `pid` (forked by any of its threads).
std::vector<pid_t> children_of(pid_t pid) {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto &task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        std::ifstream in(task.path() / "children");
        for (pid_t c; in >> c;) out.push_back(c);
    }
    return out;
}

std::string comm_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

// What tells one process from a later one with the same pid: its start time ("" when gone).
std::string start_time_of(pid_t pid) {
    const auto stat = actionhost::common::read_process_stat(pid);
    return stat ? std::to_string(stat->start_ticks) : "";
}

// ah-sandbox-init of the running sandbox `rt`: the process of that name whose command line names the
// sandbox's run directory (where its endpoint, unix://<run dir>/api.sock, is).
pid_t sandbox_init_of(Runtime &rt) {
    std::string run_dir = rt.url().substr(std::string("unix://").size());
    run_dir = run_dir.substr(0, run_dir.rfind('/'));
    for (const auto &e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = std::stoi(name);
        if (comm_of(pid) != "ah-sandbox-init") continue;
        std::ifstream in(e.path() / "cmdline");
        const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (cmdline.find(run_dir + "/") != std::string::npos) return pid;
    }
    return -1;
}

// pasta of the sandbox whose ah-sandbox-init is `init` (its child; passt.avx2 once pasta picked its
// build for this CPU): {pid, start time}, or {-1, ""}.
std::pair<pid_t, std::string> pasta_of(pid_t init) {
    for (pid_t c : children_of(init)) {
        const std::string name = comm_of(c);
        if (name == "pasta" || name.rfind("passt", 0) == 0) return {c, start_time_of(c)};
    }
    return {-1, ""};
}

// True once the process {pid, start time} is gone (or its pid is another process's), within 10 s.
bool gone_soon(const std::pair<pid_t, std::string> &p) {
    for (int i = 0; i < 1000; ++i) {
        const std::string now = start_time_of(p.first);
        if (now.empty() || now != p.second) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

bool can_run() { return geteuid() == 0 && sh("command -v pasta") == 0 && sh("command -v ip") == 0; }

}  // namespace

TEST(SandboxNetwork, TheInternetButNeverTheMachine) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip (test host namespaces)";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok()) << "the test host did not come up";
    int loop_port = 0, iface_port = 0;
    const int loop = listen_tcp("127.0.0.1", &loop_port), iface = listen_tcp("198.51.100.1", &iface_port);
    ASSERT_GE(loop, 0);
    ASSERT_GE(iface, 0);
    // An abstract unix socket of the machine's.
    const int abstract = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    const std::string name = "ah-net-test-" + std::to_string(getpid());
    std::memcpy(un.sun_path + 1, name.data(), name.size());
    ASSERT_EQ(bind(abstract, reinterpret_cast<sockaddr *>(&un), static_cast<socklen_t>(sizeof(sa_family_t) + 1 + name.size())), 0);
    ASSERT_EQ(listen(abstract, 4), 0);

    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "internet"); });
    auto &rt = *s->runtime;
    EXPECT_NE(run(rt, "cat /etc/resolv.conf").value("content", "").find("nameserver 127.0.0.53"), std::string::npos);
    // The test host, over HTTP.
    const std::string page = run(rt, "(exec 3<>/dev/tcp/198.51.100.2/8080 && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1 | tail -1", 30)
                                 .value("content", "");
    EXPECT_EQ(page, "test-host-page");
    // Never the machine, and refused at once (no hang).
    EXPECT_NE(tcp_from_inside(rt, "127.0.0.1", loop_port), "open") << "the machine's loopback service";
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.1", iface_port), "open") << "a service on the machine's own interface address";
    EXPECT_NE(tcp_from_inside(rt, "169.254.169.254", 80), "open");
    EXPECT_NE(tcp_from_inside(rt, "10.0.0.1", 80), "open");
    EXPECT_NE(tcp_from_inside(rt, "172.17.0.1", 80), "open");
    EXPECT_NE(run(rt, "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\\\0" + name +
                          "'); print('open')\" 2>&1 | tail -1")
                  .value("content", ""),
              "open")
        << "the machine's abstract socket";
    EXPECT_NE(run(rt, "python3 -c \"import socket; s = socket.create_connection(('::ffff:127.0.0.1', " + std::to_string(loop_port) +
                          "), 2); print('open')\" 2>&1 | tail -1")
                  .value("content", ""),
              "open");
    // Nothing reached the machine's listeners.
    for (int fd : {loop, iface}) {
        sockaddr_storage peer{};
        socklen_t len = sizeof peer;
        fcntl(fd, F_SETFL, O_NONBLOCK);
        EXPECT_LT(accept(fd, reinterpret_cast<sockaddr *>(&peer), &len), 0) << "a connection reached the machine";
    }
    // The sandbox's root has no way to change routes, addresses or the filter.
    const std::string as_root = run(rt, "sudo -n ip route add 198.51.100.1/32 dev lo 2>&1; ip link set eth0 down 2>&1; echo done").value("content", "");
    EXPECT_EQ(as_root.find("done"), as_root.size() - 4);
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "the network still works: " << as_root;
    for (int fd : {loop, iface, abstract}) close(fd);
}

TEST(SandboxNetwork, AllowAndDenyListsByCidr) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip (test host namespaces)";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok()) << "the test host did not come up";
    {
        // An allow list: only its entries go out, even from a refused range (here the test host's /32).
        auto s = start_runtime("sandbox", [](Config &c) {
            c.set("sandbox.network", "internet");
            c.set("sandbox.allow_out", json::array({"198.51.100.2/32"}));
        });
        EXPECT_EQ(tcp_from_inside(*s->runtime, "198.51.100.2", 8080), "open");
        EXPECT_NE(tcp_from_inside(*s->runtime, "192.0.2.1", 80), "open");
    }
    {
        auto s = start_runtime("sandbox", [](Config &c) {
            c.set("sandbox.network", "internet");
            c.set("sandbox.deny_out", json::array({"198.51.100.0/24"}));
        });
        EXPECT_NE(tcp_from_inside(*s->runtime, "198.51.100.2", 8080), "open");
    }
    // A bad name, or a list without the internet, is refused with a clear error at start.
    EXPECT_ANY_THROW(start_runtime("sandbox", [](Config &c) {
        c.set("sandbox.network", "internet");
        c.set("sandbox.allow_out", json::array({"github.*"}));
    }));
    EXPECT_ANY_THROW(start_runtime("sandbox", [](Config &c) { c.set("sandbox.allow_out", json::array({"198.51.100.2"})); }));
    EXPECT_ANY_THROW(start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "everywhere"); }));
}

// The booleans of earlier releases still work: true is the machine's network, false none.
TEST(SandboxNetwork, TrueAndFalseAreHostAndNone) {
    auto none = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", false); });
    EXPECT_NE(run(*none->runtime, "cat /etc/resolv.conf").value("content", "").find("no network"), std::string::npos);
    EXPECT_EQ(run(*none->runtime, "awk -F: 'NR > 2 { gsub(/ /, \"\", $1); print $1 }' /proc/net/dev").value("content", ""), "lo");
}

// The policy of a running sandbox changes (the client library; `ahctl net` is the same call): a deny
// takes the test host away at once, remove gives it back, an allow list then lets only its entries out;
// the refusals are counted and listed by destination across the changes; bad entries change nothing.
TEST(SandboxNetwork, ThePolicyChangesWhileTheSandboxRunsAndRefusalsAreListed) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip (test host namespaces)";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok()) << "the test host did not come up";
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "internet"); });
    Runtime &rt = *s->runtime;
    ASSERT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    json policy = rt.change_network_policy({{}, {"198.51.100.2"}, {}});
    EXPECT_EQ(policy["deny"], json::array({"198.51.100.2/32"}));
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_NE(tcp_from_inside(rt, "10.0.0.1", 443), "open");
    json now = rt.network_policy();
    EXPECT_EQ(now["mode"], "internet");
    const auto refused_before = now.value("refused", 0ULL);
    EXPECT_GE(refused_before, 3u);
    std::map<std::string, unsigned long long> log;
    for (const auto &e : now["log"]) log[e.value("address", "") + " " + e.value("protocol", "") + " " + std::to_string(e.value("port", 0))] = e.value("packets", 0ULL);
    EXPECT_GE(log["198.51.100.2 tcp 8080"], 2u) << now.dump();
    EXPECT_GE(log["10.0.0.1 tcp 443"], 1u) << now.dump();
    // Bad entries: refused with the reason, the policy in force unchanged.
    EXPECT_THROW(rt.change_network_policy({{"pypi..org"}, {}, {}}), std::invalid_argument);
    EXPECT_THROW(rt.change_network_policy({{}, {"10.0.0.0/33"}, {}}), std::invalid_argument);
    EXPECT_THROW(rt.change_network_policy({{}, {}, {"192.0.2.99"}}), std::invalid_argument);
    EXPECT_EQ(rt.network_policy()["deny"], json::array({"198.51.100.2/32"}));
    // Removed: reachable again; the counter and the log were kept through the change.
    rt.change_network_policy({{}, {}, {"198.51.100.2/32"}});
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_GE(rt.network_policy().value("refused", 0ULL), refused_before);
    // An allow list: only the test host now; the machine's end of the pair and everything else refused.
    rt.change_network_policy({{"198.51.100.2/32"}, {}, {}});
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_NE(tcp_from_inside(rt, "192.0.2.1", 80), "open");
    // The last allow entry removed: still allow-only, so nothing goes out (never the whole internet).
    policy = rt.change_network_policy({{}, {}, {"198.51.100.2/32"}});
    EXPECT_EQ(policy["allow_only"], true);
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    // The machine's end of the pair stays refused even when allowed by a broader entry.
    rt.change_network_policy({{"198.51.100.0/24"}, {}, {}});
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    int machine_port = 0;
    const int machine = listen_tcp("198.51.100.1", &machine_port);
    ASSERT_GE(machine, 0);
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.1", machine_port), "open");
    close(machine);
}

// A sandbox without the internet has no policy to change: said plainly, nothing happens.
TEST(SandboxNetwork, APolicyChangeNeedsTheInternetMode) {
    auto s = start_runtime("sandbox");
    EXPECT_EQ(s->runtime->network_policy()["mode"], "none");
    try {
        s->runtime->change_network_policy({{"198.51.100.2"}, {}, {}});
        ADD_FAILURE() << "a policy was changed on a sandbox without a network";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("needs \"internet\""), std::string::npos) << e.what();
    }
}

// A backend that does not honour the network keys (its manifest has no "network_keys") refuses them
// when set, naming them, before anything starts: never a sandbox with the machine's network for a user
// who asked for none. "host" asks for nothing and is accepted.
TEST(SandboxNetwork, ABackendWithoutTheNetworkKeysRefusesThem) {
    for (const auto &[key, value] : std::vector<std::pair<std::string, json>>{
             {"sandbox.network", "none"}, {"sandbox.network", "internet"}, {"sandbox.allow_out", json::array({"198.51.100.2"})}}) {
        try {
            start_runtime("local", [&](Config &c) { c.set(key, value); });
            ADD_FAILURE() << key << " was ignored by the local runtime";
        } catch (const actionhost::client::RuntimeError &e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("does not honour"), std::string::npos) << e.what();
        }
    }
    auto host = start_runtime("local", [](Config &c) { c.set("sandbox.network", "host"); });
    EXPECT_EQ(exit_code(run(*host->runtime, "true")), 0);
}

// pasta lives exactly as long as its sandbox: gone when the sandbox stops, and gone when ah-sandbox-init
// is killed outright (nobody left to stop it: the kernel's parent-death signal). Each pasta holds ~30 MB.
TEST(SandboxNetwork, PastaEndsWithItsSandbox) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip";
    {
        auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "internet"); });
        const auto pasta = pasta_of(sandbox_init_of(*s->runtime));
        ASSERT_GT(pasta.first, 0) << "no pasta under the sandbox's ah-sandbox-init";
        s->runtime->close();
        const bool gone = gone_soon(pasta);
        EXPECT_TRUE(gone) << "pasta " << pasta.first << " outlived its sandbox";
        if (!gone) kill(pasta.first, SIGKILL);
    }
    {
        auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "internet"); });
        const pid_t init = sandbox_init_of(*s->runtime);
        ASSERT_GT(init, 0);
        const auto pasta = pasta_of(init);
        ASSERT_GT(pasta.first, 0);
        ASSERT_EQ(kill(init, SIGKILL), 0);
        const bool gone = gone_soon(pasta);
        EXPECT_TRUE(gone) << "pasta " << pasta.first << " outlived its killed ah-sandbox-init";
        if (!gone) kill(pasta.first, SIGKILL);
    }
}

namespace {

// What the sandbox's resolver says `name` is: its first address, or "" when it has none.
std::string resolve(Runtime &rt, const std::string &name) {
    return run(rt, "getent ahostsv4 " + name + " | head -1 | cut -d' ' -f1").value("content", "");
}

// A sandbox on the internet whose resolver guard asks the test host's DNS server.
std::unique_ptr<StartedRuntime> named_sandbox(const std::string &allow, const std::string &deny) {
    return start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.network", "internet");
        c.set("sandbox.dns", json::array({"198.51.100.2"}));
        if (!allow.empty()) c.set("sandbox.allow_out", json::parse(allow));
        if (!deny.empty()) c.set("sandbox.deny_out", json::parse(deny));
    });
}

const std::vector<std::pair<std::string, std::string>> kTestNames = {
    {"allowed.test", "198.51.100.2"}, {"other.test", "198.51.100.2"}, {"bad.test", "198.51.100.2"},
    {"machine.test", "198.51.100.1"}, {"private.test", "10.0.0.1"}};

}  // namespace

// allow_out by name: nothing is open until the name is resolved, then exactly its addresses; other names
// are not even looked up (no DNS channel out), and DNS round the guard is refused.
TEST(SandboxNetwork, AnAllowListByNameOpensWhatTheNameResolvesTo) {
    if (!can_run() || sh("command -v dnsmasq") != 0) GTEST_SKIP() << "needs root, pasta, ip and dnsmasq";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.serve_dns(kTestNames)) << "the test's DNS server did not come up";
    auto s = named_sandbox("[\"allowed.test\", \"*.wild.test\"]", "");
    auto &rt = *s->runtime;
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "open before its name was resolved";
    EXPECT_EQ(resolve(rt, "other.test"), "") << "a name outside the allow list was answered";
    EXPECT_EQ(resolve(rt, "allowed.test"), "198.51.100.2");
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "the allowed name's address stayed closed";
    // DNS to any server but the guard: refused (the guard is the only way to names).
    // (the address is open now, and still port 53 there is not)
    const std::string direct = run(rt, "python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); "
                                       "s.sendto(bytes.fromhex('123401000001000000000000056f7468657204746573740000010001'), ('198.51.100.2', 53)); "
                                       "s.recv(512); print('answered')\" 2>&1 | tail -1")
                                   .value("content", "");
    EXPECT_NE(direct.find("PermissionError"), std::string::npos) << "DNS round the guard: " << direct;
    // Through the guard, only a plain question goes upstream: an allowed name with a second question
    // riding along (data out through the upstream resolver) is refused (rcode 5).
    const std::string two = run(rt, "python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5); "
                                    "q = lambda n: b''.join(bytes([len(l)]) + l.encode() for l in n.split('.')) + bytes.fromhex('0000010001'); "
                                    "s.sendto(bytes.fromhex('123401000002000000000000') + q('allowed.test') + q('secret.other.test'), ('127.0.0.53', 53)); "
                                    "print('rcode', s.recv(512)[3] & 15)\" 2>&1 | tail -1")
                                .value("content", "");
    EXPECT_EQ(two, "rcode 5");
}

// A name may not open what an address could not: an allowed name resolving to the machine's own address
// or into a private range (DNS rebinding) is answered, and the connection still refused.
TEST(SandboxNetwork, AnAllowedNameNeverOpensTheMachineOrAPrivateRange) {
    if (!can_run() || sh("command -v dnsmasq") != 0) GTEST_SKIP() << "needs root, pasta, ip and dnsmasq";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.serve_dns(kTestNames));
    int port = 0;
    const int machine = listen_tcp(NetworkTestHost::kMachineEnd, &port);
    ASSERT_GE(machine, 0);
    auto s = named_sandbox("[\"machine.test\", \"private.test\"]", "");
    auto &rt = *s->runtime;
    EXPECT_EQ(resolve(rt, "machine.test"), NetworkTestHost::kMachineEnd);
    EXPECT_NE(tcp_from_inside(rt, NetworkTestHost::kMachineEnd, port), "open") << "a name opened the machine";
    EXPECT_EQ(resolve(rt, "private.test"), "10.0.0.1");
    EXPECT_NE(tcp_from_inside(rt, "10.0.0.1", 80), "open");
    close(machine);
}

// deny_out by name: the name gets no answer, and the addresses it has are refused from then on.
TEST(SandboxNetwork, ADenyListByNameRefusesTheNameAndItsAddresses) {
    if (!can_run() || sh("command -v dnsmasq") != 0) GTEST_SKIP() << "needs root, pasta, ip and dnsmasq";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.serve_dns(kTestNames));
    auto s = named_sandbox("", "[\"bad.test\"]");
    auto &rt = *s->runtime;
    EXPECT_EQ(resolve(rt, "other.test"), "198.51.100.2") << "a name outside the deny list";
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_EQ(resolve(rt, "bad.test"), "") << "a denied name was answered";
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "a denied name's address stayed open";
}

// Names in a running sandbox's policy: allowed and then removed again (the pinned addresses go with it).
TEST(SandboxNetwork, NamesChangeWhileTheSandboxRuns) {
    if (!can_run() || sh("command -v dnsmasq") != 0) GTEST_SKIP() << "needs root, pasta, ip and dnsmasq";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.serve_dns(kTestNames));
    auto s = named_sandbox("", "");
    auto &rt = *s->runtime;
    EXPECT_EQ(resolve(rt, "other.test"), "198.51.100.2");
    actionhost::client::EgressChange change;
    change.allow = {"ALLOWED.test."};
    const auto after = rt.change_network_policy(change);
    EXPECT_EQ(resolve(rt, "other.test"), "") << "an allow list is in force now";
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_EQ(resolve(rt, "allowed.test"), "198.51.100.2");
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    actionhost::client::EgressChange removal;
    removal.remove = {"allowed.test"};
    rt.change_network_policy(removal);
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "a removed name's address stayed open";
    actionhost::client::EgressChange bad;
    bad.allow = {"exa mple.com"};
    EXPECT_THROW(rt.change_network_policy(bad), std::invalid_argument);
}

namespace {

// The first address the guard answers for `name` when asked over TCP (RFC 7766: a two-byte length
// before each message), or what went wrong.
std::string resolve_over_tcp(Runtime &rt, const std::string &name) {
    return run(rt, "python3 -c \"import socket, struct\n"
                   "q = bytes.fromhex('123401000001000000000000') + b''.join(bytes([len(l)]) + l.encode() for l in '" + name +
                       "'.split('.')) + bytes.fromhex('0000010001')\n"
                   "s = socket.create_connection(('127.0.0.53', 53), 5)\n"
                   "s.sendall(struct.pack('>H', len(q)) + q)\n"
                   "n = struct.unpack('>H', s.recv(2, socket.MSG_WAITALL))[0]\n"
                   "a = s.recv(n, socket.MSG_WAITALL)\n"
                   "print('rcode', a[3] & 15) if a[3] & 15 else print('.'.join(str(b) for b in a[-4:]))\" 2>&1 | tail -1")
        .value("content", "");
}

}  // namespace

// What does not fit a datagram is asked again over TCP: the guard serves TCP too, asks upstream over TCP
// (marked, as its UDP), and judges and pins the answer the same way.
TEST(SandboxNetwork, TheGuardAnswersOverTcpToo) {
    if (!can_run() || sh("command -v dnsmasq") != 0) GTEST_SKIP() << "needs root, pasta, ip and dnsmasq";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.serve_dns(kTestNames));
    auto s = named_sandbox("[\"allowed.test\"]", "");
    auto &rt = *s->runtime;
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    EXPECT_EQ(resolve_over_tcp(rt, "other.test"), "rcode 5") << "a name outside the allow list, over TCP";
    EXPECT_EQ(resolve_over_tcp(rt, "allowed.test"), "198.51.100.2");
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "the name's address was not pinned from its TCP answer";
    // DNS over TCP round the guard is refused as over UDP.
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 53), "open");
}

// A name removed from the allow list while the guard is still asking for it: the answer arrives after
// the change and is judged by the policy then in force — not pinned, and the sandbox gets no address.
// The upstream is a resolver of the test's own on 198.51.100.4 that answers every A question with
// 198.51.100.2 after 1.5 s.
TEST(SandboxNetwork, AnAnswerArrivingAfterItsNameWasRemovedIsNotPinned) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.add_address("198.51.100.4"));
    const std::string slow_dns =
        "import socket, threading, time\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "s.bind(('198.51.100.4', 53))\n"
        "def answer(q, peer):\n"
        "    time.sleep(1.5)\n"
        "    end = 12\n"
        "    while q[end]: end += q[end] + 1\n"
        "    question = q[12:end + 5]\n"
        "    a = q[:2] + bytes.fromhex('81800001000100000000') + question + bytes.fromhex('c00c000100010000003c0004') + bytes([198, 51, 100, 2])\n"
        "    s.sendto(a, peer)\n"
        "while True:\n"
        "    q, peer = s.recvfrom(512)\n"
        "    threading.Thread(target=answer, args=(q, peer), daemon=True).start()\n";
    ASSERT_GT(host.spawn({"/usr/bin/python3", "-c", slow_dns}), 0);
    usleep(300000);  // the server binds at once; a margin for python's start
    auto s = start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.network", "internet");
        c.set("sandbox.dns", json::array({"198.51.100.4"}));
        c.set("sandbox.allow_out", json::array({"slow.test"}));
    });
    auto &rt = *s->runtime;
    EXPECT_EQ(resolve(rt, "slow.test"), "198.51.100.2") << "the slow server answers at all";
    EXPECT_EQ(tcp_from_inside(rt, "198.51.100.2", 8080), "open");
    actionhost::client::EgressChange removal;
    removal.remove = {"slow.test"};
    rt.change_network_policy(removal);
    ASSERT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "the removal closed nothing";
    // Asked again, then removed while the answer is on its way (the server takes 1.5 s).
    actionhost::client::EgressChange again;
    again.allow = {"slow.test"};
    rt.change_network_policy(again);
    run(rt, "(getent ahostsv4 slow.test | head -1 > /tmp/late; echo asked >> /tmp/late) > /dev/null 2>&1 &");
    usleep(400000);
    rt.change_network_policy(removal);
    std::string late;
    for (int i = 0; i < 50 && late.find("asked") == std::string::npos; ++i, usleep(200000)) late = run(rt, "cat /tmp/late 2>/dev/null").value("content", "");
    EXPECT_EQ(late.substr(0, late.find('\n')), "asked") << "the late answer reached the sandbox: " << late;
    EXPECT_NE(tcp_from_inside(rt, "198.51.100.2", 8080), "open") << "the late answer was pinned after its name was removed";
}

// An address the machine gains while the sandbox runs (a DHCP renewal, a VPN, a bridge) is refused too:
// ah-sandbox-init follows the kernel's address notifications and the filter takes the new list.
TEST(SandboxNetwork, AnAddressTheMachineGainsLaterIsRefusedToo) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "internet"); });
    auto &rt = *s->runtime;
    ASSERT_EQ(tcp_from_inside(rt, NetworkTestHost::kAddress, NetworkTestHost::kPort), "open") << "the test host is reachable at all";
    ASSERT_TRUE(host.add_machine_address("198.51.100.9"));
    int port = 0;
    const int later = listen_tcp("198.51.100.9", &port);
    ASSERT_GE(later, 0);
    std::string reached = "open";
    // The filter follows within ~50 ms of the last notification; a second is plenty.
    for (int i = 0; i < 20 && reached == "open"; ++i, usleep(100000)) reached = tcp_from_inside(rt, "198.51.100.9", port);
    EXPECT_NE(reached, "open") << "the machine's new address stayed reachable from the sandbox";
    EXPECT_EQ(tcp_from_inside(rt, NetworkTestHost::kAddress, NetworkTestHost::kPort), "open") << "the rest of the policy changed with it";
    close(later);
}

namespace {

// What python3 says inside when it runs `code` (its last line).
std::string python_inside(Runtime &rt, const std::string &code) {
    return run(rt, "python3 -c \"" + code + "\" 2>&1 | tail -1").value("content", "");
}

// An ICMP echo to `address` through a datagram ("ping") socket: "reply" or what failed.
std::string ping_inside(Runtime &rt, const std::string &address) {
    return python_inside(rt, "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP); s.settimeout(3); "
                             "s.sendto(bytes.fromhex('0800f7fe00000001'), ('" + address + "', 0)); s.recv(64); print('reply')");
}

}  // namespace

// Root inside a sandbox on the internet has no raw network: a packet socket would write frames past the
// filter's IP hooks straight to pasta (a red-team run reached the machine's own address so), a raw socket
// likewise, and SO_MARK would forge the resolver guard's mark. Ping still works, through ICMP datagram
// sockets, and is judged by the filter as everything else.
TEST(SandboxNetwork, RootInsideHasNoRawNetworkAndPingStillWorks) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta and ip";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", "internet"); });
    auto &rt = *s->runtime;
    ASSERT_EQ(run(rt, "id -u").value("content", ""), "0") << "the test means root inside";
    EXPECT_NE(python_inside(rt, "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW); print('packet socket')").find("PermissionError"),
              std::string::npos);
    EXPECT_NE(python_inside(rt, "import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP); print('raw socket')")
                  .find("PermissionError"),
              std::string::npos);
    EXPECT_NE(python_inside(rt, "import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, 0x61680053); print('marked')")
                  .find("PermissionError"),
              std::string::npos);
    // pasta forwards an echo through a ping socket of the machine's, which the machine's own
    // ping_group_range must allow (Debian with systemd: every group; this machine: none).
    std::ifstream machine_range("/proc/sys/net/ipv4/ping_group_range");
    long low = 1, high = 0;
    machine_range >> low >> high;
    const std::string pinged = ping_inside(rt, NetworkTestHost::kAddress);
    EXPECT_EQ(pinged.find("PermissionError"), std::string::npos) << "no ping socket inside: " << pinged;
    if (low <= 0 && high >= 0) {
        EXPECT_EQ(pinged, "reply");
    }
    EXPECT_NE(ping_inside(rt, NetworkTestHost::kMachineEnd), "reply") << "ping reached the machine";
    // Without the internet the sandbox keeps Docker's default set (a packet socket there reaches only its loopback).
    auto none = start_runtime("sandbox");
    EXPECT_EQ(python_inside(*none->runtime, "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW); print('packet socket')"),
              "packet socket");
}
