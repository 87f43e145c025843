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
// and lets through only the sandbox's own loopback (where its resolver, the guard, listens), the
// guard's own marked DNS to its upstream resolvers, and the neighbour discovery IPv6 needs. The machine itself (its addresses, loopback) is refused whatever the
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
    // CIDRs ("203.0.113.0/24", "2001:db8::/32"), single addresses, or domain name entries ("pypi.org",
    // "*.github.com": name_rules.hpp), which the resolver guard turns into addresses of the name sets.
    std::vector<std::string> allow;
    std::vector<std::string> deny;
    // Only `allow` goes out: set by any allow entry and kept when the list empties again (removing the
    // last entry must not open the internet); then nothing goes out.
    bool allow_only = false;
};

// Where pasta forwards DNS to the machine's resolver: the resolver guard's default upstream. The
// sandbox itself may not send DNS there (nor anywhere but the guard).
inline constexpr const char *kSandboxDnsAddress = "169.254.1.1";
// The sandbox's resolver (its resolv.conf): the guard, on the sandbox's own loopback.
inline constexpr const char *kGuardAddress = "127.0.0.53";
// The mark the guard's sockets carry (SO_MARK, which needs CAP_NET_ADMIN: nothing in the sandbox can set
// it): only packets with it may go to an upstream resolver.
inline constexpr unsigned kGuardMark = 0x61680053;
// Sets of the table the guard pins a name's addresses into: let through (allow entries) and refused
// (deny entries), each element with a timeout.
inline constexpr const char *kNamesAllowed4 = "names_allowed4";
inline constexpr const char *kNamesAllowed6 = "names_allowed6";
inline constexpr const char *kNamesDenied4 = "names_denied4";
inline constexpr const char *kNamesDenied6 = "names_denied6";
// With secrets (egress_proxy.hpp): the sets of the secrets' hosts' addresses (the guard pins them as for
// allow names), whose TCP connections to port 443 a nat rule redirects to the egress proxy on
// kInterceptPort of the sandbox's loopback; the proxy's own connections carry kProxyMark and pass. Above
// the ephemeral range (32768-60999): no connection of the sandbox's can hold it.
inline constexpr const char *kIntercept4 = "intercept4";
inline constexpr const char *kIntercept6 = "intercept6";
inline constexpr int kInterceptPort = 61443;
inline constexpr unsigned kProxyMark = 0x61680050;
// Elements each of those sets holds at most.
inline constexpr int kNameSetSize = 65536;
// The table the ruleset makes, in the sandbox's namespace only.
inline constexpr const char *kEgressTable = "actionhost_egress";

// Every address of every interface of the calling process's network namespace, as text, without the
// prefix length ("192.0.2.2", "fd00::2"); IPv6 link-local ones without their zone.
std::vector<std::string> machine_addresses();

// A CIDR or an address, normalised ("10.1.2.3" -> "10.1.2.3/32"); std::invalid_argument when it is
// neither, or its prefix length is out of range.
std::string normalise_cidr(const std::string &text);
// A policy entry normalised: a CIDR as normalise_cidr, a domain name entry as normalise_name_entry.
std::string normalise_entry(const std::string &text);
// The name entries of `entries` (normalised ones), in order.
std::vector<std::string> name_entries(const std::vector<std::string> &entries);

// How many refused destinations the log keeps per address family (more are still refused and counted).
inline constexpr int kRefusalLogSize = 1024;

// The ruleset, in nft's language: one `table inet`, for a namespace that has none yet (loaded twice, nft
// would add its rules to the first's: a change goes through egress_ruleset_update).
// std::invalid_argument for an entry of `policy` that is not a CIDR.
// `resolvers`: the guard's upstream resolvers (addresses), the only destinations of its marked DNS.
// `intercept`: with the intercept sets and the nat rule of the egress proxy (a sandbox with secrets).
std::string egress_ruleset(const std::vector<std::string> &machine, const EgressPolicy &policy,
                           const std::vector<std::string> &resolvers = {kSandboxDnsAddress}, bool intercept = false);
// The same policy for a table egress_ruleset made: its output chain's rules replaced in one transaction
// (no moment without a filter), the refusal counter and log kept. std::invalid_argument as above.
// `names_changed`: the name sets are emptied too (the guard pins again what the new policy's names
// resolve to); a change of CIDRs alone keeps them, so connections to allowed names go on.
// `intercept`: as the table was made (egress_ruleset's).
std::string egress_ruleset_update(const std::vector<std::string> &machine, const EgressPolicy &policy,
                                  const std::vector<std::string> &resolvers = {kSandboxDnsAddress}, bool names_changed = true,
                                  bool intercept = false);

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
