#include "egress_secrets.hpp"
#include <actionhost/common/text.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "name_rules.hpp"

namespace sandbox {

namespace {

// Headers the proxy must not be asked to set: they frame the message or name its destination.
const char *const kFramingHeaders[] = {"host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer",
                                       "expect", "keep-alive", "proxy-connection"};
constexpr size_t kMaxHeaderValue = 8192;


// RFC 9110's token: the characters a header's name may have.
bool is_token(const std::string &s) {
    return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
    });
}

// Nothing that would end the header line or the header block, nor other control characters.
bool fits_a_header(const std::string &s) {
    return std::none_of(s.begin(), s.end(), [](unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; });
}

std::string base64(const std::string &bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()), reinterpret_cast<const unsigned char *>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<size_t>(std::max(0, n)));
    return out;
}

EgressSecret checked(const std::string &name, std::vector<std::string> hosts, const std::string &header, const std::string &header_value) {
    const auto bad = [&](const std::string &why) { return std::invalid_argument("sandbox.secrets." + name + ": " + why); };
    if (!is_token(name)) throw std::invalid_argument("sandbox.secrets: '" + name + "' is not a name for a secret (letters, digits, _ and -)");
    if (hosts.empty()) throw bad("hosts must name at least one host (the secret goes to no other)");
    for (auto &h : hosts) {
        if (!looks_like_name(h)) throw bad("'" + h + "' is not a host name (a secret is matched by the name the TLS connection asks for)");
        try {
            h = normalise_name_entry(h);
        } catch (const std::invalid_argument &e) {
            throw bad(e.what());
        }
    }
    if (!is_token(header)) throw bad("header '" + header + "' is not a header name");
    const std::string h = actionhost::common::ascii_lower(header);
    if (std::find(std::begin(kFramingHeaders), std::end(kFramingHeaders), h) != std::end(kFramingHeaders))
        throw bad("header '" + header + "' frames the request; the proxy will not set it");
    if (header_value.empty()) throw bad("value is empty");
    if (!fits_a_header(header_value)) throw bad("value (or username, format) has a control character; it cannot go into a header");
    if (header_value.size() > kMaxHeaderValue) throw bad("the header would be longer than 8 KiB");
    return {name, std::move(hosts), header, header_value};
}

std::string text_field(const nlohmann::json &entry, const std::string &name, const char *key, bool required) {
    if (!entry.contains(key)) {
        if (required) throw std::invalid_argument("sandbox.secrets." + name + ": " + key + " is missing");
        return "";
    }
    if (!entry.at(key).is_string()) throw std::invalid_argument("sandbox.secrets." + name + ": " + key + " must be a string");
    return entry.at(key).get<std::string>();
}

std::vector<std::string> host_list(const nlohmann::json &entry, const std::string &name) {
    const auto bad = std::invalid_argument("sandbox.secrets." + name + ": hosts must be a list of host names");
    if (!entry.contains("hosts")) throw bad;
    const auto &hosts = entry.at("hosts");
    if (hosts.is_string()) return {hosts.get<std::string>()};
    if (!hosts.is_array()) throw bad;
    std::vector<std::string> out;
    for (const auto &h : hosts) {
        if (!h.is_string()) throw bad;
        out.push_back(h.get<std::string>());
    }
    return out;
}

}  // namespace

EgressSecret make_secret(const std::string &name, const std::string &value, const std::vector<std::string> &hosts, const std::string &header,
                         const std::string &username, const std::string &format) {
    if (value.empty()) throw std::invalid_argument("sandbox.secrets." + name + ": value is empty");
    if (!username.empty() && !format.empty()) throw std::invalid_argument("sandbox.secrets." + name + ": give username or format, not both");
    if (username.find(':') != std::string::npos) throw std::invalid_argument("sandbox.secrets." + name + ": username has a ':'");
    std::string header_value;
    if (!username.empty()) {
        if (!fits_a_header(username) || !fits_a_header(value))
            throw std::invalid_argument("sandbox.secrets." + name + ": value (or username) has a control character");
        header_value = "Basic " + base64(username + ":" + value);
    } else {
        std::string f = !format.empty() ? format : (actionhost::common::ascii_lower(header) == "authorization" ? "Bearer {value}" : "{value}");
        const size_t at = f.find("{value}");
        if (at == std::string::npos) throw std::invalid_argument("sandbox.secrets." + name + ": format has no {value}");
        header_value = f.replace(at, 7, value);
    }
    return checked(name, hosts, header, header_value);
}

std::vector<EgressSecret> parse_secret_table(const nlohmann::json &table) {
    if (table.is_null()) return {};
    if (!table.is_object()) throw std::invalid_argument("sandbox.secrets must be a table of secrets: NAME = {value, hosts}");
    std::vector<EgressSecret> out;
    for (const auto &[name, entry] : table.items()) {
        if (!entry.is_object()) throw std::invalid_argument("sandbox.secrets." + name + " must be a table: {value, hosts}");
        for (const auto &[key, unused] : entry.items()) {
            (void)unused;
            if (key != "value" && key != "hosts" && key != "header" && key != "username" && key != "format")
                throw std::invalid_argument("sandbox.secrets." + name + ": unknown key '" + key + "' (value, hosts, header, username, format)");
        }
        const std::string header = text_field(entry, name, "header", false);
        out.push_back(make_secret(name, text_field(entry, name, "value", true), host_list(entry, name), header.empty() ? "Authorization" : header,
                                  text_field(entry, name, "username", false), text_field(entry, name, "format", false)));
    }
    return out;
}

nlohmann::json secrets_to_wire(const std::vector<EgressSecret> &secrets) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto &s : secrets) out.push_back({{"name", s.name}, {"hosts", s.hosts}, {"header", s.header}, {"header_value", s.header_value}});
    return out;
}

std::vector<EgressSecret> secrets_from_wire(const nlohmann::json &wire) {
    if (!wire.is_array()) throw std::invalid_argument("the secrets are not a list");
    std::vector<EgressSecret> out;
    for (const auto &s : wire) {
        if (!s.is_object()) throw std::invalid_argument("a secret is not an object");
        const std::string name = text_field(s, "?", "name", true);
        out.push_back(checked(name, host_list(s, name), text_field(s, name, "header", true), text_field(s, name, "header_value", true)));
    }
    return out;
}

const EgressSecret *secret_for_host(const std::vector<EgressSecret> &secrets, const std::string &host) {
    for (const auto &s : secrets)
        for (const auto &pattern : s.hosts)
            if (name_matches(pattern, host)) return &s;
    return nullptr;
}

std::vector<std::string> secret_hosts(const std::vector<EgressSecret> &secrets) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto &s : secrets)
        for (const auto &h : s.hosts)
            if (seen.insert(h).second) out.push_back(h);
    return out;
}

}  // namespace sandbox
