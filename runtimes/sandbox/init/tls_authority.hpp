// The per-sandbox certificate authority of the egress proxy (egress_proxy.hpp), with OpenSSL's X.509 API.
//
// A sandbox given secrets (sandbox.secrets, or git provider tokens) trusts one CA of its own, made for
// it at start by the sandbox backend and never used for another: its certificate goes into the
// sandbox's trust store, its key only to the proxy, which runs outside the sandbox. The CA is
// name-constrained (RFC 5280, critical) to the secrets' hosts, so even its key could only ever vouch for
// those names. The proxy issues a leaf certificate per host name as connections ask for it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sandbox {

struct CaMaterial {
    std::string cert_pem;  // goes into the sandbox's trust store
    std::string key_pem;   // goes to the proxy only (PKCS#8, unencrypted: it never touches a disk it outlives)
};

// A new CA (P-256, valid from an hour ago for a year) named `common_name`, permitted only the DNS names
// of `hosts` and what lies below them (name entries: "git.example.com", "*.example.org" → "example.org"),
// and no IP address at all.
// std::runtime_error when OpenSSL fails; std::invalid_argument for an empty `hosts`.
CaMaterial make_sandbox_ca(const std::string &common_name, const std::vector<std::string> &hosts);

// Leaf certificates signed by a CA of make_sandbox_ca, one per host name, kept (at most kMaxLeaves; the
// oldest then goes). Thread: any (one lock).
class LeafIssuer {
  public:
    // std::runtime_error when the PEMs do not load or do not belong together.
    LeafIssuer(const std::string &ca_cert_pem, const std::string &ca_key_pem);
    ~LeafIssuer();
    LeafIssuer(const LeafIssuer &) = delete;
    LeafIssuer &operator=(const LeafIssuer &) = delete;
    struct Leaf {
        std::string chain_pem;  // the leaf, then the CA
        std::string key_pem;
    };
    // The leaf for `host` (a DNS name): subjectAltName DNS:host, serverAuth, valid as long as the CA.
    // std::runtime_error when OpenSSL fails.
    Leaf leaf_for(const std::string &host);
    static constexpr size_t kMaxLeaves = 256;

  private:
    struct Keys;
    std::unique_ptr<Keys> keys_;
    std::mutex mutex_;
    std::map<std::string, Leaf> leaves_;
    std::vector<std::string> order_;
};

}  // namespace sandbox
