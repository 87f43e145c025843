// Domain names in the sandbox's egress policy (`sandbox.allow_out = ["pypi.org", "*.github.com"]`): what
// an entry may be, and what the sandbox's resolver guard (dns_guard.hpp) does with a name it is asked.
//
// A name entry is a DNS name ("pypi.org", matched exactly) or "*." and a name ("*.github.com", matched
// by every name below it, not by github.com itself). Names compare without case and without a final dot.
// The filter cannot match names: the guard, the sandbox's only way to DNS, pins the addresses it
// resolved for a name into sets of the filter (egress_rules.hpp) before the sandbox sees the answer.
#pragma once

#include <string>
#include <vector>

namespace sandbox {

// Whether `text` is a name entry rather than an address or CIDR (it has a letter or a '*' and no ':'
// or '/'). It says nothing about validity: normalise_name_entry does.
bool looks_like_name(const std::string &text);

// A DNS name as entries and queries compare: lower-cased, without a final dot.
std::string normalised_name(std::string name);

// The entry lower-cased, without a final dot. std::invalid_argument with the reason when it is not a
// name of labels (letters, digits, '-' inside, '_'; 1-63 each, 253 in all) with at most a leading "*.".
std::string normalise_name_entry(const std::string &text);

// Whether the normalised entry `pattern` matches the normalised name `name`.
bool name_matches(const std::string &pattern, const std::string &name);

// What the guard does with a query for `name` (normalised):
//   Refuse — a deny entry matches: the query is answered REFUSED, and the addresses the name has
//            (it is still asked upstream) are refused by the filter;
//   Pin    — an allow entry matches: answered, its addresses let through by the filter (never the
//            machine's, never a range refused by default: a name cannot open what an address cannot);
//   Drop   — an allow list is in force and no entry matches: answered REFUSED, not asked upstream
//            (DNS is no channel out under an allow list);
//   Pass   — otherwise: answered as upstream answers.
enum class NameVerdict { Refuse, Pin, Drop, Pass };
NameVerdict name_verdict(const std::string &name, const std::vector<std::string> &allow_names,
                         const std::vector<std::string> &deny_names, bool allow_only);

}  // namespace sandbox
