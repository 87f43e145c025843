// Secrets the sandbox never holds (`sandbox.secrets`, and the git provider tokens of a sandbox on the
// internet): what one is, how the configuration names it, and the form it travels in from the sandbox
// backend through ah-sandbox-init to the egress proxy (egress_proxy.hpp), which adds it to the HTTPS
// requests for its hosts — and nothing else ever sees it.
//
//   [sandbox.secrets.NAME]
//   value = "..."                     # required
//   hosts = ["api.example.com", "*.example.org"]   # required: name entries (name_rules.hpp), not addresses
//   header = "Authorization"          # the request header it is sent in (default)
//   username = "x-access-token"       # when given: "Basic base64(username:value)"
//   format = "Bearer {value}"         # else: the header's value, "{value}" replaced (default: "Bearer
//                                     # {value}" for Authorization, "{value}" for another header)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sandbox {

struct EgressSecret {
    std::string name;                // its key in sandbox.secrets ("github_token" for a provider's)
    std::vector<std::string> hosts;  // normalised name entries
    std::string header;              // "Authorization"
    std::string header_value;        // what the header is set to: the secret itself, formatted
};

// The table of `sandbox.secrets` ({NAME: {value, hosts, header?, username?, format?}}), checked:
// std::invalid_argument naming the secret and what is wrong (never quoting its value).
std::vector<EgressSecret> parse_secret_table(const nlohmann::json &table);
// One secret from its parts, checked as above.
EgressSecret make_secret(const std::string &name, const std::string &value, const std::vector<std::string> &hosts,
                         const std::string &header = "Authorization", const std::string &username = "", const std::string &format = "");

// The travelling form ([{name, hosts, header, header_value}]) and back; from_wire throws
// std::invalid_argument for anything that is not that form, checked as make_secret checks.
nlohmann::json secrets_to_wire(const std::vector<EgressSecret> &secrets);
std::vector<EgressSecret> secrets_from_wire(const nlohmann::json &wire);

// The secret whose hosts match `host` (a normalised DNS name), the first one given; nullptr when none.
const EgressSecret *secret_for_host(const std::vector<EgressSecret> &secrets, const std::string &host);
// Every host entry of `secrets`, once each.
std::vector<std::string> secret_hosts(const std::vector<EgressSecret> &secrets);

}  // namespace sandbox
