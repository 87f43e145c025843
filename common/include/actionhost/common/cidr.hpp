// Address ranges (CIDRs) of IPv4 and IPv6, the one parser of them: the sandbox's egress filter
// (runtimes/sandbox/init/egress_rules.cpp) and the network keys other backends map
// (runtime_support/network_keys.hpp) read `allow_out`/`deny_out` entries with it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace actionhost::common {

// An IPv4 or IPv6 range, normalised: no host bits under the prefix.
struct Cidr {
    bool v6 = false;
    std::array<uint8_t, 16> bytes{};  // IPv4 in the first 4
    int prefix = 0;

    std::string text() const;                // "10.0.0.0/8", "2001:db8::/32"
    bool contains(const Cidr &other) const;  // `other` lies wholly inside this one (same family)
    bool operator==(const Cidr &o) const { return v6 == o.v6 && bytes == o.bytes && prefix == o.prefix; }
};

// "10.1.2.3/8" → 10.0.0.0/8 (host bits cleared), "10.1.2.3" → 10.1.2.3/32, "fd00::2" → fd00::2/128;
// nullopt for anything else (a domain name, a prefix length out of range, garbage).
std::optional<Cidr> parse_cidr(const std::string &text);

}  // namespace actionhost::common
