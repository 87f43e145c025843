// `sandbox.network` and the egress lists on Modal, as the sandbox's NetworkAccess (modal-client's
// Sandbox.create(block_network=..., cidr_allowlist=...)), as far as Modal can have them:
//   - unset, "internet" and "host" are OPEN: a Modal sandbox reaches the internet, never this machine's
//     network, so "host" asks for nothing more ("host" gets a note saying so);
//   - allow_out CIDRs are ALLOWLIST with them as allowed_cidrs (cidr_allowlist): nothing else goes out;
//   - "none" is ALLOWLIST with no entry: nothing goes out. Not BLOCKED (block_network): modal-client refuses
//     open ports with it ("Cannot specify open ports when `block_network` is enabled"), and the client
//     reaches the host through the tunnel of an open port;
//   - domain names in allow_out and any deny_out entry are refused: Modal's allow list takes CIDRs only
//     and it has no deny list. (sandbox.dns, secrets and upstream_ca_file are not in the module's
//     "network_keys": the client refuses them.)
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace modal {

struct ModalNetwork {
    enum class Type { Open, Allowlist } type = Type::Open;
    std::vector<std::string> allowed_cidrs;  // Allowlist: what may be reached (none at all for "none")
    std::string note;                        // how a mode was read, for the log, or ""
};

// `mode`, `allow`, `deny`: the configuration's texts (lists as JSON). Throws std::invalid_argument
// naming the key and the reason.
ModalNetwork modal_network(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                           const std::optional<std::string> &deny);

}  // namespace modal
