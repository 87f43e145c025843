// Secrets kept outside the sandbox (runtimes/sandbox/init/egress_proxy.hpp): a git provider token and a
// secret of sandbox.secrets reach a test host's HTTPS git server (198.51.100.2, in a network namespace
// made here, names from the test's own DNS server) through the sandbox's egress proxy, while nothing
// inside holds them. Attacked: a server that cannot prove the secret's name, another name on the same
// address, a Host header other than the connection's, a connection made to the proxy itself, a request
// that brings its own Authorization. Real pasta, nftables, OpenSSL, git and curl.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <actionhost/client/errors.hpp>

#include "network_test_host.hpp"
#include "runtime_harness.hpp"
#include "support/host_process.hpp"
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

}  // namespace

TEST(SandboxSecrets, TokensReachTheirHostsAndNeverTheSandbox) {
    if (!can_run()) GTEST_SKIP() << "needs root, pasta, ip, dnsmasq, openssl, git and curl";
    TestPki pki;
    ASSERT_TRUE(pki.ok) << "the test's certificates or repository";
    NetworkTestHost host;
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE(host.add_address("198.51.100.3"));
    ASSERT_TRUE(host.serve_dns({{"git.test", "198.51.100.2"}, {"plain.test", "198.51.100.2"}, {"evil.test", "198.51.100.3"}}));
    const std::string token = "ghp_ahTestToken" + std::to_string(getpid()) + "x7Q", other = "sk-ahOtherSecret" + std::to_string(getpid());
    const std::string git_log = pki.path("git.log"), evil_log = pki.path("evil.log");
    ASSERT_TRUE(serve_git(host, pki, "198.51.100.2", "git", token, git_log));
    ASSERT_TRUE(serve_git(host, pki, "198.51.100.3", "evil", token, evil_log));

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
    // Plain http to the secret's host: never given the secret (8080: the host's plain web server).
    EXPECT_EQ(content(rt, "curl -s http://git.test:8080/ | head -1"), "test-host-page");

    // Nowhere inside: not the environment, not a file, not any process's environment or command line.
    for (const std::string &value : {token, other}) {
        // A pattern that matches the secret and not itself (grep's own command line holds the pattern).
        const std::string secret = value.substr(0, 4) + "[" + value.substr(4, 1) + "]" + value.substr(5);
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
