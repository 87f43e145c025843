#include "actionhost/runtime_support/network_keys.hpp"

#include <arpa/inet.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace actionhost::runtime_support {

namespace {

std::vector<std::string> string_list(const std::optional<std::string> &text, const std::string &key, const char *what) {
    std::vector<std::string> out;
    if (!text || text->empty() || *text == "null") return out;
    const nlohmann::json list = nlohmann::json::parse(*text, nullptr, false);
    if (!list.is_array()) throw std::invalid_argument(key + " must be a list of " + what);
    for (const auto &e : list) {
        if (!e.is_string() || e.get<std::string>().empty()) throw std::invalid_argument(key + " must be a list of " + what + " (non-empty strings)");
        out.push_back(e.get<std::string>());
    }
    return out;
}

const char *mode_name(NetworkMode m) { return m == NetworkMode::None ? "none" : m == NetworkMode::Host ? "host" : "internet"; }

}  // namespace

NetworkKeys read_network_keys(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                              const std::optional<std::string> &deny, const std::optional<std::string> &dns) {
    NetworkKeys k;
    const std::string m = mode.value_or("");
    if (m == "none" || m == "false") k.mode = NetworkMode::None;
    else if (m == "internet") k.mode = NetworkMode::Internet;
    else if (m == "host" || m == "true") k.mode = NetworkMode::Host;
    else if (!m.empty() && m != "null")
        throw std::invalid_argument("sandbox.network must be \"none\", \"internet\" or \"host\", not '" + m + "'");
    k.allow = string_list(allow, "sandbox.allow_out", "CIDRs and domain names");
    k.deny = string_list(deny, "sandbox.deny_out", "CIDRs and domain names");
    k.dns = string_list(dns, "sandbox.dns", "addresses");
    // As the sandbox runtime reads them: the lists narrow (or resolve for) an internet connection; with
    // no network, or the machine's whole network, they have nothing to act on.
    if (k.mode == NetworkMode::None || k.mode == NetworkMode::Host)
        for (const auto &[key, list] : {std::pair<const char *, const std::vector<std::string> *>{"sandbox.allow_out", &k.allow},
                                        {"sandbox.deny_out", &k.deny},
                                        {"sandbox.dns", &k.dns}})
            if (!list->empty())
                throw std::invalid_argument(std::string(key) + " needs sandbox.network = \"internet\" (it is \"" + mode_name(k.mode) + "\")");
    return k;
}

std::vector<Cidr> cidr_entries(const std::vector<std::string> &entries, const std::string &key, const std::string &why_no_names) {
    std::vector<Cidr> out;
    for (const auto &e : entries) {
        auto c = parse_cidr(e);
        if (!c) throw std::invalid_argument(key + ": '" + e + "' is not a CIDR or an address, and domain names are not enforced here: " + why_no_names);
        bool seen = false;
        for (const auto &o : out) seen = seen || o == *c;
        if (!seen) out.push_back(*c);
    }
    return out;
}

std::vector<std::string> dns_addresses(const std::vector<std::string> &entries) {
    std::vector<std::string> out;
    for (const auto &e : entries) {
        auto c = parse_cidr(e);
        if (!c || e.find('/') != std::string::npos)
            throw std::invalid_argument("sandbox.dns: '" + e + "' is not an address (the resolvers are addresses, like docker run --dns)");
        const std::string text = c->text();
        out.push_back(text.substr(0, text.find('/')));
    }
    return out;
}

const std::vector<Cidr> &private_ranges() {
    static const std::vector<Cidr> ranges = [] {
        std::vector<Cidr> r;
        for (const char *t : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "fc00::/7", "fe80::/10"})
            r.push_back(*parse_cidr(t));
        return r;
    }();
    return ranges;
}

}  // namespace actionhost::runtime_support
