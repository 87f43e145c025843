// The sandbox's resolver guard (`network = "internet"`): the sandbox's only way to DNS, and what makes
// domain names in the egress policy hold. It is ah-sandbox-net staying on after it loaded the filter:
// in the sandbox's network namespace (where it listens, on kGuardAddress:53 of the sandbox's loopback),
// outside its pid and mount namespaces (nothing inside can see, signal or trace it), as the sandbox's
// creator with CAP_NET_ADMIN over that namespace only.
//
// For each query (UDP, and TCP for what does not fit a datagram: RFC 7766's two-byte length before each
// message, asked upstream over TCP too) it decides by the name (name_rules.hpp): a name of a deny entry is still asked
// upstream, its addresses are added to the filter's refused sets, and the sandbox gets REFUSED; a name of
// an allow entry is asked and its addresses added to the let-through sets *before* the answer goes back
// (an address the sandbox learns is already open: never a race); under an allow list any other name is
// refused without asking (no DNS channel out); otherwise the answer passes. Its own queries carry
// kGuardMark, the only DNS the filter lets out. A pinning that fails answers SERVFAIL.
// A name of a secret's hosts (egress_secrets.hpp) that is answered also has its addresses pinned into the
// intercept sets before the answer goes back, so the sandbox's HTTPS to it meets the egress proxy.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sandbox {

struct NamePolicy {
    std::vector<std::string> allow_names, deny_names;  // normalised name entries
    bool allow_only = false;
};

class DnsGuard {
  public:
    // Runs nft commands in the sandbox's namespace; "" or nft's error.
    using Nft = std::function<std::string(const std::string &commands)>;
    // `socket`: bound to kGuardAddress:53 in the sandbox's namespace; `listener`: listening there for TCP
    // (closed: no TCP). `upstreams`: asked in order. `intercepted`: the secrets' host entries (normalised
    // name entries; none without secrets). Thread: the one running `io`.
    DnsGuard(boost::asio::io_context &io, boost::asio::ip::udp::socket socket, boost::asio::ip::tcp::acceptor listener,
             std::vector<boost::asio::ip::udp::endpoint> upstreams, NamePolicy policy, Nft nft, std::vector<std::string> intercepted = {});
    // The next answers are judged by `policy` (also those asked before: an answer is judged when it
    // arrives, so a name removed while it was being asked is not pinned).
    void set_policy(NamePolicy policy) { policy_ = std::move(policy); }
    // Queries being answered at most at once; more are dropped (the sandbox's resolver asks again).
    static constexpr int kMaxInFlight = 256;
    // TCP connections served at once (more are closed as they come), and how long one may stay idle.
    static constexpr int kMaxTcpClients = 64;
    static constexpr int kTcpIdleSeconds = 10;

    struct TcpClient;  // dns_guard.cpp

  private:
    struct Query;
    void receive();
    void accept();
    void read_tcp(std::shared_ptr<TcpClient> c);
    void handle(std::shared_ptr<Query> q);
    void ask(std::shared_ptr<Query> q, size_t upstream);
    void ask_tcp(std::shared_ptr<Query> q, size_t upstream);
    void await_answer(std::shared_ptr<Query> q, size_t upstream);
    void answered(std::shared_ptr<Query> q, std::string answer);
    void reply(const std::shared_ptr<Query> &q, const std::string &message);

    boost::asio::io_context &io_;
    boost::asio::ip::udp::socket socket_;
    boost::asio::ip::tcp::acceptor listener_;
    int tcp_clients_ = 0;
    std::vector<boost::asio::ip::udp::endpoint> upstreams_;
    NamePolicy policy_;
    Nft nft_;
    std::vector<std::string> intercepted_;
    int in_flight_ = 0;
    std::vector<unsigned char> buffer_;
    boost::asio::ip::udp::endpoint from_;
};

// The reply to `query` with only its question and `rcode` (ns_r_refused, ns_r_servfail); "" when the
// query cannot be parsed.
std::string dns_error_reply(const std::string &query, int rcode);
// The question's name, normalised (lower case, no final dot), or "" when there is none.
std::string dns_question_name(const std::string &message);
struct DnsAddress {
    std::string address;  // "198.51.100.2", "2001:db8::1"
    bool v6 = false;
    unsigned ttl = 0;
};
// The addresses an answer gives its question's name: the A and AAAA records owned by that name or by a
// name its CNAME chain leads to (records of any other name are not the question's: never pinned).
std::vector<DnsAddress> dns_answer_addresses(const std::string &answer);
// Whether `query` is a plain question fit to be asked upstream: not a response, opcode QUERY, exactly one
// question, no answer or authority records, and in the additional section at most an EDNS OPT record
// without options — nothing else the sandbox could send out through the upstream resolver.
bool dns_plain_query(const std::string &query);
// The most addresses one answer may pin; an answer with more is refused (SERVFAIL), never half pinned.
inline constexpr size_t kMaxPinnedPerAnswer = 64;

}  // namespace sandbox
