#include "network_test_host.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace runtimes_test {

namespace {

int sh(const std::string &command) {
    const int status = std::system((command + " >/dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

NetworkTestHost::NetworkTestHost() {
    const std::string id = std::to_string(getpid() % 100000);
    ns_ = "ahnet" + id;
    veth_ = "ahv" + id;
    ok_ = sh("ip netns add " + ns_) == 0 && sh("ip link add " + veth_ + "a type veth peer name " + veth_ + "b") == 0 &&
          sh("ip link set " + veth_ + "b netns " + ns_) == 0 && sh("ip addr add 198.51.100.1/24 dev " + veth_ + "a") == 0 &&
          sh("ip link set " + veth_ + "a up") == 0 && sh("ip -n " + ns_ + " addr add 198.51.100.2/24 dev " + veth_ + "b") == 0 &&
          sh("ip -n " + ns_ + " link set " + veth_ + "b up") == 0 && sh("ip -n " + ns_ + " link set lo up") == 0;
    if (!ok_) return;
    dir_ = "/tmp/" + ns_ + "-www";
    sh("mkdir -p " + dir_);
    std::ofstream(dir_ + "/index.html") << "test-host-page\n";
    server_ = fork();
    if (server_ == 0) {
        const int null = open("/dev/null", O_WRONLY);  // its request log is noise in a test's output
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execlp("ip", "ip", "netns", "exec", ns_.c_str(), "/usr/bin/python3", "-m", "http.server", "8080", "--bind", "198.51.100.2",
               "--directory", dir_.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    // Up to 5 s for the server to listen, seen from the machine.
    ok_ = false;
    for (int i = 0; i < 100 && !ok_; ++i, usleep(50000))
        ok_ = sh("/usr/bin/python3 -c \"import socket; socket.create_connection(('198.51.100.2', 8080), 1)\"") == 0;
}

bool NetworkTestHost::add_address(const std::string &address) {
    return ok_ && sh("ip -n " + ns_ + " addr add " + address + "/24 dev " + veth_ + "b") == 0;
}

bool NetworkTestHost::add_machine_address(const std::string &address) {
    return ok_ && sh("ip addr add " + address + "/32 dev " + veth_ + "a") == 0;
}

pid_t NetworkTestHost::spawn(const std::vector<std::string> &command) {
    if (!ok_) return -1;
    std::vector<std::string> args = {"ip", "netns", "exec", ns_};
    args.insert(args.end(), command.begin(), command.end());
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        std::vector<char *> argv;
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execvp("ip", argv.data());
        _exit(127);
    }
    if (pid > 0) spawned_.push_back(pid);
    return pid;
}

bool NetworkTestHost::serve_dns(const std::vector<std::pair<std::string, std::string>> &records) {
    if (!ok_ || dns_ > 0) return false;
    std::vector<std::string> args = {"dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts",
                                     "--bind-interfaces", "--listen-address=198.51.100.2", "--port=53", "--user=root",
                                     "--pid-file=", "--local-ttl=60"};
    for (const auto &[name, address] : records) args.push_back("--address=/" + name + "/" + address);
    dns_ = spawn(args);  // in the namespace, killed with the host
    if (dns_ < 0) return false;
    // Up to 5 s to answer, asked from the machine.
    for (int i = 0; i < 100; ++i, usleep(50000))
        if (sh("/usr/bin/python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.5); "
               "s.sendto(bytes.fromhex('12340100000100000000000004746573740000010001'), ('198.51.100.2', 53)); s.recv(512)\"") == 0)
            return true;
    return false;
}

int listen_tcp(const std::string &address, int *port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, address.c_str(), &a.sin_addr);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

NetworkTestHost::~NetworkTestHost() {
    spawned_.push_back(server_);  // (dns_ is among spawned_ already)
    for (pid_t p : spawned_)
        if (p > 0) {
            kill(p, SIGKILL);
            waitpid(p, nullptr, 0);
        }
    sh("ip netns pids " + ns_ + " | xargs -r kill -9");  // the server python under `ip netns exec`
    sh("ip link del " + veth_ + "a");
    sh("ip netns del " + ns_);
    if (!dir_.empty()) sh("rm -rf " + dir_);
}

}  // namespace runtimes_test
