#include "network_access.hpp"

#include <actionhost/runtime_support/network_keys.hpp>

#include <stdexcept>

namespace modal {

namespace rs = actionhost::runtime_support;

ModalNetwork modal_network(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                           const std::optional<std::string> &deny) {
    const rs::NetworkKeys keys = rs::read_network_keys(mode, allow, deny, std::nullopt);
    if (!keys.deny.empty())
        throw std::invalid_argument("sandbox.deny_out is not enforced by the modal runtime: Modal's network access is open, an allow "
                                    "list of CIDRs (cidr_allowlist) or blocked, with no deny list; list what may be reached in "
                                    "sandbox.allow_out instead, or use the sandbox runtime (-r sandbox)");
    ModalNetwork n;
    if (keys.mode == rs::NetworkMode::None) {
        n.type = ModalNetwork::Type::Allowlist;
        n.note = "network = \"none\" on Modal is an allow list with no entry: nothing goes out, while the client still reaches the "
                 "host through its tunnel (block_network would close that: Modal takes no open port with it)";
        return n;
    }
    if (!keys.allow.empty()) {
        n.type = ModalNetwork::Type::Allowlist;
        for (const auto &c : rs::cidr_entries(keys.allow, "sandbox.allow_out",
                                              "Modal's allow list (cidr_allowlist) takes CIDRs only; list the addresses of the names, "
                                              "or use the sandbox runtime (-r sandbox)"))
            n.allowed_cidrs.push_back(c.text());
        return n;
    }
    if (keys.mode == rs::NetworkMode::Host)
        n.note = "network = \"host\" on Modal is its open network: a Modal sandbox reaches the internet, never this machine's network";
    return n;
}

}  // namespace modal
