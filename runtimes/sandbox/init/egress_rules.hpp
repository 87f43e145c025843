// The sandbox's egress filter for `network = "internet"`: an nftables ruleset loaded into the sandbox's
// own network namespace (by ah-sandbox-net, before any command runs), where nothing inside can change
// it: the sandbox's root has no CAP_NET_ADMIN (init/privileges.cpp cuts it from the bounding set).
//
// User-mode networking (pasta) opens the sandbox's connections as sockets of the machine, so without a
// filter the sandbox would reach whatever the machine reaches: its own addresses, the link-local
// metadata service, the private networks it sits in. The filter rejects, on the way out of the sandbox:
//   - the machine's own addresses, every interface's, v4 and v6 (taken when the sandbox starts);
//   - loopback, "this network", link-local (169.254/16, fe80::/10), multicast and reserved ranges;
//   - by default the private ranges 10/8, 172.16/12, 192.168/16, 100.64/10 and fc00::/7;
// and lets through only the sandbox's own loopback, the DNS forwarder's address (port 53), and the
// neighbour discovery IPv6 needs. The machine itself (its addresses, loopback) is refused whatever the
// policy says. An `allow` entry (a CIDR) inside a range refused by default opens that much of it (an
// entry reaching beyond such ranges, 0.0.0.0/0, opens only public space); once the policy has had an
// `allow` entry nothing else goes out, even when its entries are removed again. `deny` entries come
// first of all.
// A refusal is a TCP reset / ICMP "administratively prohibited" at once, never a hang, and is counted;
// where refused TCP and UDP went is kept in two sets of the table (address, protocol, port, packets),
// read back as the refusal log.
#pragma once

#include <string>
#include <vector>

namespace sandbox {

struct EgressPolicy {
    std::vector<std::string> allow;  // CIDRs ("203.0.113.0/24", "2001:db8::/32") or single addresses
    std::vector<std::string> deny;
    // Only `allow` goes out: set by any allow entry and kept when the list empties again (removing the
    // last entry must not open the internet); then nothing goes out.
    bool allow_only = false;
};

// The address the sandbox's resolver is (pasta forwards DNS sent there to the machine's resolver).
inline constexpr const char *kSandboxDnsAddress = "169.254.1.1";
// The table the ruleset makes, in the sandbox's namespace only.
inline constexpr const char *kEgressTable = "actionhost_egress";

// Every address of every interface of the calling process's network namespace, as text, without the
// prefix length ("192.0.2.2", "fd00::2"); IPv6 link-local ones without their zone.
std::vector<std::string> machine_addresses();

// A CIDR or an address, normalised ("10.1.2.3" -> "10.1.2.3/32"); std::invalid_argument when it is
// neither, or its prefix length is out of range. Domain names are refused here with that message.
std::string normalise_cidr(const std::string &text);

// How many refused destinations the log keeps per address family (more are still refused and counted).
inline constexpr int kRefusalLogSize = 1024;

// The ruleset, in nft's language: one `table inet`, for a namespace that has none yet (loaded twice, nft
// would add its rules to the first's: a change goes through egress_ruleset_update).
// std::invalid_argument for an entry of `policy` that is not a CIDR.
std::string egress_ruleset(const std::vector<std::string> &machine, const EgressPolicy &policy);
// The same policy for a table egress_ruleset made: its output chain's rules replaced in one transaction
// (no moment without a filter), the refusal counter and log kept. std::invalid_argument as above.
std::string egress_ruleset_update(const std::vector<std::string> &machine, const EgressPolicy &policy);

struct RefusedDestination {
    std::string address, protocol;  // "10.1.2.3", "tcp"
    int port = 0;
    unsigned long long packets = 0;
};
struct RefusalLog {
    unsigned long long refused = 0;  // every refused packet, TCP and UDP or not, logged or not
    std::vector<RefusedDestination> destinations;
};
// The log in `nft -j list table inet actionhost_egress`'s output. std::runtime_error when that is not
// nftables' JSON.
RefusalLog refusal_log(const std::string &nft_json);

}  // namespace sandbox
