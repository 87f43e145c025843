#include "egress_rules.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <set>
#include <stdexcept>

namespace sandbox {

namespace {

bool is_v6(const std::string &cidr) { return cidr.find(':') != std::string::npos; }

// Refused unless allowed: loopback, "this network", link-local, shared (CGNAT) and private space,
// multicast and the reserved block; for IPv6 also the v4-mapped and NAT64 forms of any v4 address, so
// "::ffff:127.0.0.1" is not a way round the v4 list.
const char *const kRefused4[] = {"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
                                 "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4",
                                 "240.0.0.0/4"};
const char *const kRefused6[] = {"::/127", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "fc00::/7", "fe80::/10",
                                 "ff00::/8"};

std::string join(const std::vector<std::string> &items) {
    std::string out;
    for (const auto &i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
}

}  // namespace

std::vector<std::string> machine_addresses() {
    std::set<std::string> out;
    ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0) throw std::runtime_error("cannot list the machine's addresses");
    for (ifaddrs *a = list; a != nullptr; a = a->ifa_next) {
        if (a->ifa_addr == nullptr) continue;
        char text[INET6_ADDRSTRLEN] = {};
        if (a->ifa_addr->sa_family == AF_INET)
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(a->ifa_addr)->sin_addr, text, sizeof text);
        else if (a->ifa_addr->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 *>(a->ifa_addr)->sin6_addr, text, sizeof text);
        else
            continue;
        out.insert(text);
    }
    freeifaddrs(list);
    return {out.begin(), out.end()};
}

std::string normalise_cidr(const std::string &text) {
    const size_t slash = text.find('/');
    const std::string address = text.substr(0, slash);
    const bool v6 = is_v6(address);
    unsigned char buf[sizeof(in6_addr)];
    if (inet_pton(v6 ? AF_INET6 : AF_INET, address.c_str(), buf) != 1)
        throw std::invalid_argument("'" + text + "' is not an address or a CIDR (domain names are not supported yet: give the addresses)");
    const int max = v6 ? 128 : 32;
    int prefix = max;
    if (slash != std::string::npos) {
        const std::string p = text.substr(slash + 1);
        if (p.empty() || p.size() > 3 || p.find_first_not_of("0123456789") != std::string::npos || std::stoi(p) > max)
            throw std::invalid_argument("'" + text + "': the prefix length must be 0 to " + std::to_string(max));
        prefix = std::stoi(p);
    }
    // Host bits set ("10.1.2.3/8") are cleared, as nft would refuse them.
    const int bytes = v6 ? 16 : 4;
    for (int bit = prefix; bit < bytes * 8; ++bit) buf[bit / 8] &= static_cast<unsigned char>(~(0x80 >> (bit % 8)));
    char out[INET6_ADDRSTRLEN] = {};
    inet_ntop(v6 ? AF_INET6 : AF_INET, buf, out, sizeof out);
    return std::string(out) + "/" + std::to_string(prefix);
}

std::string egress_ruleset(const std::vector<std::string> &machine, const EgressPolicy &policy) {
    std::vector<std::string> allow4, allow6, deny4, deny6, refuse4(std::begin(kRefused4), std::end(kRefused4)),
        refuse6(std::begin(kRefused6), std::end(kRefused6));
    for (const auto &a : policy.allow) (is_v6(a) ? allow6 : allow4).push_back(normalise_cidr(a));
    for (const auto &d : policy.deny) (is_v6(d) ? deny6 : deny4).push_back(normalise_cidr(d));
    for (const auto &m : machine) (is_v6(m) ? refuse6 : refuse4).push_back(normalise_cidr(m));
    const bool allow_list = !policy.allow.empty();
    std::string r;
    // Made fresh each time: "add" then "delete" removes an older one without failing when there is none.
    r += std::string("add table inet ") + kEgressTable + "\n";
    r += std::string("delete table inet ") + kEgressTable + "\n";
    r += std::string("table inet ") + kEgressTable + " {\n";
    r += "  counter refused {}\n";
    r += "  chain output {\n";
    r += "    type filter hook output priority 0; policy accept;\n";
    r += "    oifname \"lo\" accept\n";
    r += std::string("    ip daddr ") + kSandboxDnsAddress + " meta l4proto { tcp, udp } th dport 53 accept\n";
    // IPv6 cannot work without neighbour discovery (to link-local and multicast addresses).
    r += "    icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit } accept\n";
    if (!deny4.empty()) r += "    ip daddr { " + join(deny4) + " } counter name refused reject with icmpx admin-prohibited\n";
    if (!deny6.empty()) r += "    ip6 daddr { " + join(deny6) + " } counter name refused reject with icmpx admin-prohibited\n";
    if (!allow4.empty()) r += "    ip daddr { " + join(allow4) + " } accept\n";
    if (!allow6.empty()) r += "    ip6 daddr { " + join(allow6) + " } accept\n";
    if (allow_list) {
        r += "    meta nfproto { ipv4, ipv6 } counter name refused reject with icmpx admin-prohibited\n";
    } else {
        r += "    ip daddr { " + join(refuse4) + " } counter name refused reject with icmpx admin-prohibited\n";
        r += "    ip6 daddr { " + join(refuse6) + " } counter name refused reject with icmpx admin-prohibited\n";
    }
    r += "  }\n}\n";
    return r;
}

}  // namespace sandbox
