// A test host for the sandbox's network, made by the test (or bench) that needs it: a network
// namespace with 198.51.100.2 (TEST-NET-2) behind a veth pair whose machine end is 198.51.100.1,
// serving HTTP on 8080 from a directory of its own (python3's http.server, started in the namespace
// and killed by pid), and DNS when asked (serve_dns). Needs root and `ip`. Everything it made is removed by the destructor.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace runtimes_test {

class NetworkTestHost {
  public:
    NetworkTestHost();
    ~NetworkTestHost();
    NetworkTestHost(const NetworkTestHost &) = delete;
    NetworkTestHost &operator=(const NetworkTestHost &) = delete;

    bool ok() const { return ok_; }
    // A DNS server on kAddress:53 (Debian's dnsmasq, in the namespace, no upstream) answering each name
    // of `records` ({"name", "address"}: A or AAAA by the address) and its subdomains, NXDOMAIN else.
    // False when it did not come up within 5 s.
    bool serve_dns(const std::vector<std::pair<std::string, std::string>> &records);
    // One more address of the host's (on its end of the pair, /24).
    bool add_address(const std::string &address);
    // One more address of the machine's (on its end of the pair, /32), removed with the host.
    bool add_machine_address(const std::string &address);
    // `argv` run in the host's namespace (output to /dev/null), killed by pid with the host; its pid or -1.
    pid_t spawn(const std::vector<std::string> &argv);
    // The directory it serves (index.html says "test-host-page").
    const std::string &www() const { return dir_; }
    static constexpr const char *kAddress = "198.51.100.2";
    static constexpr const char *kMachineEnd = "198.51.100.1";
    static constexpr int kPort = 8080;

  private:
    std::string ns_, veth_, dir_;
    pid_t server_ = -1, dns_ = -1;
    std::vector<pid_t> spawned_;
    bool ok_ = false;
};

// A listening TCP socket of the machine's at `address` (IPv4; port chosen by the kernel, stored in
// *port); -1 on failure. The caller closes it.
int listen_tcp(const std::string &address, int *port);

}  // namespace runtimes_test
