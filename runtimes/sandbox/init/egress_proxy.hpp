// The egress proxy of a sandbox given secrets (egress_secrets.hpp): where a secret is added to the
// sandbox's HTTPS requests for its hosts, so that `git clone https://github.com/...` works while nothing
// inside — environment, files, /proc, memory — ever holds the token.
//
// It runs in ah-sandbox-net beside the resolver guard (dns_guard.hpp): in the sandbox's network
// namespace, outside its pid and mount namespaces. The guard pins the addresses the secrets' host names
// resolve to into the filter's intercept sets (egress_rules.hpp), whose nat rule redirects the sandbox's
// TCP connections to port 443 of those addresses to this proxy, on kInterceptPort of the sandbox's
// loopback. For each connection:
//   - the original destination (SO_ORIGINAL_DST) and the TLS server name (SNI) of the ClientHello,
//     read without consuming it; a connection made to the proxy itself is closed;
//   - a name no secret is for: the bytes relayed untouched to the original destination (TLS end to
//     end, as if no proxy were there);
//   - a secret's name: TLS ended here with a certificate for that name from the sandbox's own CA
//     (tls_authority.hpp), a new TLS connection to the original destination that must prove the same
//     name against the machine's trust store (plus sandbox.upstream_ca_file) — a failure ends both sides
//     and nothing is sent — then HTTP/1.1 relayed request by request, each with the secret's header set
//     (any value the sandbox gave replaced) when its Host is the name the TLS connection was made for
//     (421 otherwise: no fronting another name through a secret's connection).
// Its upstream sockets carry kProxyMark (the nat rule lets them pass unredirected); the filter judges
// them as the sandbox's own: a secret opens no destination the policy refuses.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <string>
#include <vector>

#include "egress_secrets.hpp"

namespace sandbox {

struct ProxyConfig {
    std::vector<EgressSecret> secrets;
    std::string ca_cert_pem, ca_key_pem;  // the sandbox's CA (make_sandbox_ca)
    std::string upstream_ca_pem;          // CAs trusted for upstream servers beside the machine's ("": none)
};

// The proxy's counts since it started, for the refusal log's listing and for tests.
struct ProxyCounts {
    std::atomic<unsigned long long> relayed{0};      // connections passed through untouched
    std::atomic<unsigned long long> intercepted{0};  // connections to a secret's host, TLS ended here
    std::atomic<unsigned long long> injected{0};     // requests sent upstream with a secret
    std::atomic<unsigned long long> refused{0};      // connections or requests ended without sending anything
};

struct ProxyState;  // egress_proxy.cpp

class EgressProxy {
  public:
    // `listeners`: listening sockets on kInterceptPort of the namespace's loopback (v4 and v6). Thread:
    // the one running `io`, which serves every connection. std::runtime_error for CA material that does
    // not load.
    EgressProxy(boost::asio::io_context &io, std::vector<boost::asio::ip::tcp::acceptor> listeners, ProxyConfig config);
    ~EgressProxy();
    EgressProxy(const EgressProxy &) = delete;
    EgressProxy &operator=(const EgressProxy &) = delete;
    const ProxyCounts &counts() const;
    // Connections served at once; more are closed as they come.
    static constexpr int kMaxConnections = 256;

  private:
    std::shared_ptr<ProxyState> state_;
};

// What the ClientHello at the start of `bytes` asks for, parsed by OpenSSL (its ClientHello callback).
struct ServerName {
    enum State { Named, Unnamed, NeedMore, NotTls } state = NeedMore;
    std::string name;  // Named: the TLS server name (SNI), lower-cased
};
ServerName client_hello_server_name(const std::string &bytes);

}  // namespace sandbox
