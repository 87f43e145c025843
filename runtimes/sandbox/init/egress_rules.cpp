#include "egress_rules.hpp"

#include "name_rules.hpp"

#include <actionhost/common/cidr.hpp>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
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
// ::/96 (the deprecated IPv4-compatible form, ::1 and :: among it) and 6to4's 2002::/16, which embed a
// v4 address too.
const char *const kRefused6[] = {"::/96", "2002::/16", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "fc00::/7", "fe80::/10",
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
    if (const auto cidr = actionhost::common::parse_cidr(text)) return cidr->text();  // host bits cleared, as nft wants
    const size_t slash = text.find('/');
    const auto address = actionhost::common::parse_cidr(text.substr(0, slash));
    if (!address || slash == std::string::npos) throw std::invalid_argument("'" + text + "' is not an address or a CIDR");
    throw std::invalid_argument("'" + text + "': the prefix length must be 0 to " + std::to_string(address->v6 ? 128 : 32));
}

std::string normalise_entry(const std::string &text) {
    return looks_like_name(text) ? normalise_name_entry(text) : normalise_cidr(text);
}

std::vector<std::string> name_entries(const std::vector<std::string> &entries) {
    std::vector<std::string> out;
    for (const auto &e : entries)
        if (looks_like_name(e)) out.push_back(normalise_name_entry(e));
    return out;
}

namespace {

// Whether the normalised CIDR `inner` lies within the normalised CIDR `outer` (same family).
bool within(const std::string &inner, const std::string &outer) {
    const auto i = actionhost::common::parse_cidr(inner), o = actionhost::common::parse_cidr(outer);
    return i && o && o->contains(*i);
}

// The output chain's rules, one nft statement each: what both the whole ruleset and its update write.
// In this order:
//   1. the sandbox's loopback, neighbour discovery, connections redirected to the egress proxy: accepted;
//   2. the policy's deny entries: refused (the resolver too, if one names it);
//   3. the machine itself — its interfaces' addresses, loopback, v4-mapped IPv6: refused whatever the
//      allow entries say (the sandbox never reaches the machine);
//   4. the guard's DNS (marked) to its upstream resolvers: accepted; any other DNS (ports 53, 853) and
//      the addresses a deny name resolved to: refused;
//   5. allow entries inside a range refused by default (10.1.0.0/16 within 10/8): accepted — an explicit
//      entry opens that much of the range;
//   6. the ranges refused by default (private, link-local and metadata, multicast, reserved): refused —
//      so an entry reaching beyond them (0.0.0.0/0) opens only public space;
//   7. the other allow entries, and the addresses allow names resolved to: accepted;
//   8. with an allow list (allow_only): everything else refused.
std::vector<std::string> output_rules(const std::vector<std::string> &machine, const EgressPolicy &policy,
                                      const std::vector<std::string> &resolvers, bool intercept) {
    std::vector<std::string> deny4, deny6, hard4 = {"127.0.0.0/8"}, hard6 = {"::1/128", "::ffff:0:0/96"},
                                           refuse4(std::begin(kRefused4), std::end(kRefused4)),
                                           refuse6(std::begin(kRefused6), std::end(kRefused6)), inside4, inside6, public4, public6;
    for (const auto &d : policy.deny) {
        if (looks_like_name(d)) {
            (void)normalise_name_entry(d);  // the guard's: checked here all the same
            continue;
        }
        (is_v6(d) ? deny6 : deny4).push_back(normalise_cidr(d));
    }
    for (const auto &m : machine) (is_v6(m) ? hard6 : hard4).push_back(normalise_cidr(m));
    std::vector<std::string> upstream4, upstream6;
    for (const auto &u : resolvers) (is_v6(u) ? upstream6 : upstream4).push_back(normalise_cidr(u));
    for (const auto &entry : policy.allow) {
        if (looks_like_name(entry)) {
            (void)normalise_name_entry(entry);
            continue;
        }
        const std::string a = normalise_cidr(entry);
        const auto &ranges = is_v6(a) ? refuse6 : refuse4;
        const bool inside = std::any_of(ranges.begin(), ranges.end(), [&](const std::string &r) { return within(a, normalise_cidr(r)); });
        (is_v6(a) ? (inside ? inside6 : public6) : (inside ? inside4 : public4)).push_back(a);
    }
    std::vector<std::string> r = {"type filter hook output priority 0; policy accept;", "oifname \"lo\" accept",
                                  // IPv6 cannot work without neighbour discovery (to link-local and multicast addresses).
                                  "icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit } accept"};
    // A connection the intercept rule redirected to the proxy: its packets still name the interface it
    // was routed to before (a hook's devices are fixed as it begins), with the loopback's address now.
    if (intercept) r.push_back("ct status dnat tcp dport " + std::to_string(kInterceptPort) + " accept");
    const auto add = [&r](const char *match, const std::vector<std::string> &set, const char *verdict) {
        if (!set.empty()) r.push_back(std::string(match) + " { " + join(set) + " } " + verdict);
    };
    add("ip daddr", deny4, "jump refuse");
    add("ip6 daddr", deny6, "jump refuse");
    add("ip daddr", hard4, "jump refuse");
    add("ip6 daddr", hard6, "jump refuse");
    char mark[16];
    std::snprintf(mark, sizeof mark, "0x%08x", kGuardMark);
    add((std::string("meta mark ") + mark + " meta l4proto { tcp, udp } th dport 53 ip daddr").c_str(), upstream4, "accept");
    add((std::string("meta mark ") + mark + " meta l4proto { tcp, udp } th dport 53 ip6 daddr").c_str(), upstream6, "accept");
    // DNS and DNS over TLS anywhere else: refused, so the guard is the sandbox's only resolver (names of
    // the policy cannot be looked up round it; DNS over HTTPS is ordinary HTTPS and is not told apart).
    r.push_back("meta l4proto { tcp, udp } th dport { 53, 853 } jump refuse");
    r.push_back(std::string("ip daddr @") + kNamesDenied4 + " jump refuse");
    r.push_back(std::string("ip6 daddr @") + kNamesDenied6 + " jump refuse");
    add("ip daddr", inside4, "accept");
    add("ip6 daddr", inside6, "accept");
    add("ip daddr", refuse4, "jump refuse");
    add("ip6 daddr", refuse6, "jump refuse");
    add("ip daddr", public4, "accept");
    add("ip6 daddr", public6, "accept");
    r.push_back(std::string("ip daddr @") + kNamesAllowed4 + " accept");
    r.push_back(std::string("ip6 daddr @") + kNamesAllowed6 + " accept");
    if (policy.allow_only || !policy.allow.empty()) r.push_back("meta nfproto { ipv4, ipv6 } jump refuse");
    return r;
}

}  // namespace

std::string egress_ruleset(const std::vector<std::string> &machine, const EgressPolicy &policy, const std::vector<std::string> &resolvers,
                           bool intercept) {
    const std::vector<std::string> rules = output_rules(machine, policy, resolvers, intercept);
    std::string r;
    // Into the sandbox's fresh namespace, where no table is yet: made, never replaced (a running sandbox's
    // policy changes with egress_ruleset_update). An "add table; delete table" head to replace an older
    // one would cost the commit a wait for an RCU grace period: 7 ms here became 15-30 ms.
    r += std::string("table inet ") + kEgressTable + " {\n";
    r += "  counter refused {}\n";
    // Where refused TCP and UDP went, one element per destination with its own counter; once full, more
    // destinations are still refused and counted, only not listed.
    r += "  set refused4 { type ipv4_addr . inet_proto . inet_service; flags dynamic; size " + std::to_string(kRefusalLogSize) + "; counter; }\n";
    r += "  set refused6 { type ipv6_addr . inet_proto . inet_service; flags dynamic; size " + std::to_string(kRefusalLogSize) + "; counter; }\n";
    // What names of the policy resolved to (the guard adds them, with a timeout).
    // Bounded: once full, the guard's pinning fails and it answers SERVFAIL (never an address not pinned).
    const std::string size = std::to_string(kNameSetSize);
    for (const char *set : {kNamesAllowed4, kNamesDenied4}) r += std::string("  set ") + set + " { type ipv4_addr; flags timeout; size " + size + "; }\n";
    for (const char *set : {kNamesAllowed6, kNamesDenied6}) r += std::string("  set ") + set + " { type ipv6_addr; flags timeout; size " + size + "; }\n";
    // Every refusal: noted (no verdict: a full set or an untracked protocol never skips the reject), counted, rejected.
    r += "  chain refuse {\n";
    r += "    meta nfproto ipv4 meta l4proto { tcp, udp } add @refused4 { ip daddr . meta l4proto . th dport }\n";
    r += "    meta nfproto ipv6 meta l4proto { tcp, udp } add @refused6 { ip6 daddr . meta l4proto . th dport }\n";
    r += "    counter name refused reject with icmpx admin-prohibited\n";
    r += "  }\n";
    r += "  chain output {\n";
    for (const auto &rule : rules) r += "    " + rule + "\n";
    r += "  }\n";
    if (intercept) {
        // Before the filter (nat runs at -100): the filter then sees the redirected connection on the
        // sandbox's loopback, and the proxy's own connection, marked, as the sandbox's.
        char mark[16];
        std::snprintf(mark, sizeof mark, "0x%08x", kProxyMark);
        const std::string port = std::to_string(kInterceptPort);
        r += std::string("  set ") + kIntercept4 + " { type ipv4_addr; flags timeout; size " + size + "; }\n";
        r += std::string("  set ") + kIntercept6 + " { type ipv6_addr; flags timeout; size " + size + "; }\n";
        r += "  chain intercept {\n";
        r += "    type nat hook output priority -100; policy accept;\n";
        r += std::string("    meta mark ") + mark + " return\n";
        r += std::string("    ip daddr @") + kIntercept4 + " tcp dport 443 redirect to :" + port + "\n";
        r += std::string("    ip6 daddr @") + kIntercept6 + " tcp dport 443 redirect to :" + port + "\n";
        r += "  }\n";
    }
    r += "}\n";
    return r;
}

std::string egress_ruleset_update(const std::vector<std::string> &machine, const EgressPolicy &policy,
                                  const std::vector<std::string> &resolvers, bool names_changed, bool intercept) {
    const std::vector<std::string> rules = output_rules(machine, policy, resolvers, intercept);  // throws before anything is written
    std::string r = std::string("flush chain inet ") + kEgressTable + " output\n";
    if (names_changed)
        for (const char *set : {kNamesAllowed4, kNamesAllowed6, kNamesDenied4, kNamesDenied6})
            r += std::string("flush set inet ") + kEgressTable + " " + set + "\n";
    // The hook line stays as the chain was made; the rules go in again, all in one transaction.
    for (size_t i = 1; i < rules.size(); ++i) r += std::string("add rule inet ") + kEgressTable + " output " + rules[i] + "\n";
    return r;
}

RefusalLog refusal_log(const std::string &nft_json) {
    RefusalLog log;
    const auto doc = nlohmann::json::parse(nft_json, nullptr, false);
    if (!doc.is_object() || !doc.contains("nftables") || !doc["nftables"].is_array())
        throw std::runtime_error("nftables listed the filter as something unexpected");
    for (const auto &item : doc["nftables"]) {
        if (!item.is_object()) continue;
        if (item.contains("counter") && item["counter"].is_object() && item["counter"].value("name", "") == "refused")
            log.refused = item["counter"].value("packets", 0ULL);
        if (!item.contains("set") || !item["set"].is_object()) continue;
        const auto &set = item["set"];
        const std::string name = set.value("name", "");
        if ((name != "refused4" && name != "refused6") || !set.contains("elem") || !set["elem"].is_array()) continue;
        for (const auto &e : set["elem"]) {
            // {"elem": {"val": {"concat": [address, protocol, port]}, "counter": {"packets": N, ...}}}
            const auto &elem = e.is_object() && e.contains("elem") ? e["elem"] : e;
            const auto &val = elem.is_object() && elem.contains("val") ? elem["val"] : elem;
            if (!val.is_object() || !val.contains("concat") || !val["concat"].is_array() || val["concat"].size() != 3) continue;
            const auto &c = val["concat"];
            RefusedDestination d;
            d.address = c[0].is_string() ? c[0].get<std::string>() : "";
            d.protocol = c[1].is_string() ? c[1].get<std::string>() : "";
            d.port = c[2].is_number_integer() ? c[2].get<int>() : 0;
            if (elem.is_object() && elem.contains("counter") && elem["counter"].is_object()) d.packets = elem["counter"].value("packets", 0ULL);
            log.destinations.push_back(d);
        }
    }
    return log;
}

}  // namespace sandbox
