// The `[sandbox]` network keys (network, allow_out, deny_out, dns) as a backend other than `sandbox` reads
// them, to map them onto its platform (docker, modal, kubernetes): the mode, the lists checked, and CIDRs
// parsed so a backend can tell an address range from a domain name and one range from another's inside.
// The sandbox runtime checks these keys itself (runtimes/sandbox/init/egress_rules.hpp), with its name rules.
#pragma once

#include <actionhost/common/cidr.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

// The ranges: common/cidr.hpp's.
using actionhost::common::Cidr;
using actionhost::common::parse_cidr;

// What `sandbox.network` asks for: unset (the backend's default), "none", "internet" or "host" (true and
// false read as "host" and "none", as every backend reads them).
enum class NetworkMode { Unset, None, Internet, Host };

struct NetworkKeys {
    NetworkMode mode = NetworkMode::Unset;
    std::vector<std::string> allow, deny, dns;  // the entries as given
};

// The keys from their configuration texts (lists as JSON; unset, "" and "null" are empty). Throws
// std::invalid_argument, naming the key, for a mode that is none of the above, a list that is not a list
// of strings, and a list given with "none" or "host" (the lists narrow "internet"; unset counts as it, the
// default of every backend that reads this).
NetworkKeys read_network_keys(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                              const std::optional<std::string> &deny, const std::optional<std::string> &dns);

// The entries of `key` as CIDRs, in order, duplicates dropped. A domain name (or anything not an address
// or a CIDR) is refused with std::invalid_argument naming the key, the entry and `why_no_names` (what the
// platform lacks to enforce a name).
std::vector<Cidr> cidr_entries(const std::vector<std::string> &entries, const std::string &key, const std::string &why_no_names);

// The entries of `sandbox.dns` as addresses ("192.0.2.53", "2001:db8::53"): a range or a name is refused
// with std::invalid_argument naming it.
std::vector<std::string> dns_addresses(const std::vector<std::string> &entries);

// The ranges `internet` never reaches on a backend that maps it: private (10/8, 172.16/12, 192.168/16),
// shared address space (100.64/10), link-local with the metadata service (169.254/16), unique local
// (fc00::/7) and link-local IPv6 (fe80::/10).
const std::vector<Cidr> &private_ranges();

}  // namespace actionhost::runtime_support
