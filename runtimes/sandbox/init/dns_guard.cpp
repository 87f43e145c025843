#include "dns_guard.hpp"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <arpa/nameser_compat.h>
#include <resolv.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <chrono>
#include <cstring>

#include "egress_rules.hpp"
#include "name_rules.hpp"

namespace sandbox {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;

namespace {

constexpr size_t kMaxMessage = 65535;
// How long an upstream resolver has to answer before the next is asked.
constexpr auto kUpstreamTimeout = std::chrono::seconds(2);
// A pinned address stays open at least this long (the sandbox may keep an answer past its TTL, as
// resolvers with a floor do), and at most a day.
constexpr unsigned kPinFloorSeconds = 3600, kPinCeilingSeconds = 86400;

// A message as DNS over TCP sends it (RFC 7766): its length in two bytes, then the message.
std::string tcp_framed(const std::string &message) {
    return std::string{static_cast<char>(message.size() >> 8), static_cast<char>(message.size() & 0xff)} + message;
}

bool parse(const std::string &message, ns_msg &handle) {
    return ns_initparse(reinterpret_cast<const unsigned char *>(message.data()), static_cast<int>(message.size()), &handle) == 0;
}

}  // namespace

std::string dns_question_name(const std::string &message) {
    ns_msg handle;
    ns_rr rr;
    if (!parse(message, handle) || ns_msg_count(handle, ns_s_qd) < 1 || ns_parserr(&handle, ns_s_qd, 0, &rr) != 0) return "";
    return normalised_name(ns_rr_name(rr));
}

std::string dns_error_reply(const std::string &query, int rcode) {
    ns_msg handle;
    if (!parse(query, handle)) return "";
    const auto *start = reinterpret_cast<const unsigned char *>(query.data());
    const int question = ns_skiprr(start + NS_HFIXEDSZ, start + query.size(), ns_s_qd, ns_msg_count(handle, ns_s_qd));
    if (question < 0) return "";
    std::string reply = query.substr(0, NS_HFIXEDSZ + static_cast<size_t>(question));
    HEADER header;
    std::memcpy(&header, reply.data(), sizeof header);
    header.qr = 1;
    header.ra = 1;
    header.aa = 0;
    header.tc = 0;
    header.rcode = static_cast<unsigned>(rcode) & 0xf;
    header.ancount = header.nscount = header.arcount = 0;
    std::memcpy(reply.data(), &header, sizeof header);
    return reply;
}

std::vector<DnsAddress> dns_answer_addresses(const std::string &answer) {
    std::vector<DnsAddress> out;
    ns_msg handle;
    if (!parse(answer, handle)) return out;
    const std::string question = dns_question_name(answer);
    if (question.empty()) return out;
    const auto *msg = reinterpret_cast<const unsigned char *>(answer.data());
    const int count = std::min(ns_msg_count(handle, ns_s_an), 4096);
    // The question's name and the names its CNAME chain leads to (records in any order: a pass per link).
    std::vector<std::string> names = {question};
    for (int pass = 0; pass < 16; ++pass) {
        const size_t before = names.size();
        for (int i = 0; i < count; ++i) {
            ns_rr rr;
            if (ns_parserr(&handle, ns_s_an, i, &rr) != 0) break;
            if (ns_rr_type(rr) != ns_t_cname) continue;
            if (std::find(names.begin(), names.end(), normalised_name(ns_rr_name(rr))) == names.end()) continue;
            char target[NS_MAXDNAME];
            if (ns_name_uncompress(msg, msg + answer.size(), ns_rr_rdata(rr), target, sizeof target) < 0) continue;
            if (std::find(names.begin(), names.end(), normalised_name(target)) == names.end()) names.push_back(normalised_name(target));
        }
        if (names.size() == before) break;
    }
    for (int i = 0; i < count; ++i) {
        ns_rr rr;
        if (ns_parserr(&handle, ns_s_an, i, &rr) != 0) break;
        const bool a = ns_rr_type(rr) == ns_t_a && ns_rr_rdlen(rr) == 4, aaaa = ns_rr_type(rr) == ns_t_aaaa && ns_rr_rdlen(rr) == 16;
        if ((!a && !aaaa) || std::find(names.begin(), names.end(), normalised_name(ns_rr_name(rr))) == names.end()) continue;
        char text[INET6_ADDRSTRLEN] = {};
        inet_ntop(a ? AF_INET : AF_INET6, ns_rr_rdata(rr), text, sizeof text);
        out.push_back({text, aaaa, ns_rr_ttl(rr)});
    }
    return out;
}

bool dns_plain_query(const std::string &query) {
    ns_msg handle;
    if (!parse(query, handle)) return false;  // ns_initparse also refuses bytes after the last record
    HEADER header;
    std::memcpy(&header, query.data(), sizeof header);
    if (header.qr != 0 || header.opcode != ns_o_query || ns_msg_count(handle, ns_s_qd) != 1 || ns_msg_count(handle, ns_s_an) != 0 ||
        ns_msg_count(handle, ns_s_ns) != 0 || ns_msg_count(handle, ns_s_ar) > 1)
        return false;
    if (ns_msg_count(handle, ns_s_ar) == 1) {
        ns_rr rr;
        if (ns_parserr(&handle, ns_s_ar, 0, &rr) != 0 || ns_rr_type(rr) != ns_t_opt || ns_rr_rdlen(rr) != 0 ||
            (std::strcmp(ns_rr_name(rr), "") != 0 && std::strcmp(ns_rr_name(rr), ".") != 0))
            return false;
    }
    return true;
}

struct DnsGuard::Query {
    std::string message, name;
    std::function<void(const std::string &)> send;  // the reply's way back: a datagram, or a TCP client's queue
    bool tcp = false;                               // came over TCP: asked upstream over TCP
    std::unique_ptr<udp::socket> upstream;
    std::unique_ptr<tcp::socket> stream;
    std::unique_ptr<asio::steady_timer> timer;
    std::string framed;                             // over TCP: the length, then the message
    std::array<unsigned char, 2> length{};
    std::vector<unsigned char> answer = std::vector<unsigned char>(kMaxMessage);
    bool done = false;
};

// A TCP client of the guard: messages read one after another (several may be in flight: RFC 7766 lets
// answers come in any order, told apart by their ids), answers queued and written one at a time.
struct DnsGuard::TcpClient {
    TcpClient(asio::io_context &io, tcp::socket s, int &count) : socket(std::move(s)), idle(io), clients(count) { ++clients; }
    void close() {
        if (closed) return;
        closed = true;
        --clients;
        boost::system::error_code ignored;
        socket.close(ignored);
        idle.cancel();
    }
    tcp::socket socket;
    asio::steady_timer idle;
    int &clients;
    std::array<unsigned char, 2> length{};
    std::string message;
    std::deque<std::string> out;
    bool writing = false, closed = false;
};

namespace {

void flush(std::shared_ptr<DnsGuard::TcpClient> c);

}  // namespace

DnsGuard::DnsGuard(asio::io_context &io, udp::socket socket, tcp::acceptor listener, std::vector<udp::endpoint> upstreams, NamePolicy policy,
                   Nft nft, std::vector<std::string> intercepted)
    : io_(io), socket_(std::move(socket)), listener_(std::move(listener)), upstreams_(std::move(upstreams)), policy_(std::move(policy)),
      nft_(std::move(nft)), intercepted_(std::move(intercepted)), buffer_(kMaxMessage) {
    receive();
    if (listener_.is_open()) accept();
}

namespace {

void flush(std::shared_ptr<DnsGuard::TcpClient> c) {
    if (c->closed || c->out.empty()) {
        c->writing = false;
        return;
    }
    c->writing = true;
    asio::async_write(c->socket, asio::buffer(c->out.front()), [c](const boost::system::error_code &ec, size_t) {
        c->out.pop_front();
        if (ec) return c->close();
        flush(c);
    });
}

}  // namespace

void DnsGuard::accept() {
    listener_.async_accept([this](const boost::system::error_code &ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) return;
        if (ec) {  // out of descriptors, say: a pause, not a spin
            auto wait = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(50));
            return wait->async_wait([this, wait](const boost::system::error_code &) { accept(); });
        }
        if (tcp_clients_ < kMaxTcpClients) read_tcp(std::make_shared<TcpClient>(io_, std::move(socket), tcp_clients_));
        accept();
    });
}

void DnsGuard::read_tcp(std::shared_ptr<TcpClient> c) {
    if (c->closed) return;
    c->idle.expires_after(std::chrono::seconds(kTcpIdleSeconds));
    c->idle.async_wait([c](const boost::system::error_code &ec) {
        if (!ec) c->close();  // idle too long (an answer still owed is dropped with it)
    });
    asio::async_read(c->socket, asio::buffer(c->length), [this, c](const boost::system::error_code &ec, size_t) {
        const size_t n = (static_cast<size_t>(c->length[0]) << 8) | c->length[1];
        if (ec || n < NS_HFIXEDSZ) return c->close();
        c->message.resize(n);
        asio::async_read(c->socket, asio::buffer(c->message), [this, c](const boost::system::error_code &e, size_t) {
            if (e) return c->close();
            auto q = std::make_shared<Query>();
            q->message = c->message;
            q->tcp = true;
            q->send = [c](const std::string &reply) {
                if (c->closed || reply.size() > kMaxMessage) return;
                c->out.push_back(tcp_framed(reply));
                if (!c->writing) flush(c);
            };
            handle(q);
            read_tcp(c);
        });
    });
}

void DnsGuard::receive() {
    socket_.async_receive_from(asio::buffer(buffer_), from_, [this](const boost::system::error_code &ec, size_t n) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec && n >= NS_HFIXEDSZ) {
            auto q = std::make_shared<Query>();
            q->message.assign(reinterpret_cast<const char *>(buffer_.data()), n);
            q->send = [this, client = from_](const std::string &reply) {
                boost::system::error_code ignored;
                socket_.send_to(asio::buffer(reply), client, 0, ignored);  // a datagram: never blocks for long, lost if it fails
            };
            handle(q);
        }
        receive();
    });
}

void DnsGuard::handle(std::shared_ptr<Query> q) {
    q->name = dns_question_name(q->message);
    if (q->name.empty()) return reply(q, dns_error_reply(q->message, ns_r_formerr));
    if (!dns_plain_query(q->message)) return reply(q, dns_error_reply(q->message, ns_r_refused));  // only a question goes upstream
    if (name_verdict(q->name, policy_.allow_names, policy_.deny_names, policy_.allow_only) == NameVerdict::Drop)
        return reply(q, dns_error_reply(q->message, ns_r_refused));
    // Answered without asking (above) even when the upstream is slow; past the limit a query is dropped
    // and the sandbox's resolver asks again.
    if (in_flight_ >= kMaxInFlight) return;
    ++in_flight_;
    ask(q, 0);
}

void DnsGuard::ask(std::shared_ptr<Query> q, size_t upstream) {
    if (q->tcp) return ask_tcp(q, upstream);
    if (upstream >= upstreams_.size()) {
        --in_flight_;
        return reply(q, dns_error_reply(q->message, ns_r_servfail));
    }
    boost::system::error_code ec;
    q->upstream = std::make_unique<udp::socket>(io_);
    q->upstream->open(upstreams_[upstream].protocol(), ec);
    const unsigned mark = kGuardMark;
    if (!ec && setsockopt(q->upstream->native_handle(), SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0)
        ec = boost::system::error_code(errno, boost::system::system_category());
    if (!ec) q->upstream->connect(upstreams_[upstream], ec);  // a port of its own: only that server's answer arrives
    if (!ec) q->upstream->send(asio::buffer(q->message), 0, ec);
    if (ec) return ask(q, upstream + 1);
    q->timer = std::make_unique<asio::steady_timer>(io_, kUpstreamTimeout);
    q->timer->async_wait([this, q, upstream](const boost::system::error_code &e) {
        if (e || q->done) return;
        q->upstream->close();  // the pending receive ends with operation_aborted
        ask(q, upstream + 1);
    });
    await_answer(q, upstream);
}

void DnsGuard::await_answer(std::shared_ptr<Query> q, size_t upstream) {
    q->upstream->async_receive(asio::buffer(q->answer), [this, q, upstream](const boost::system::error_code &e, size_t n) {
        if (e || q->done) return;
        // The same id and the same question, or it is not the answer: a stray datagram is ignored and
        // the answer waited for on, until the server's time is up.
        std::string answer(reinterpret_cast<const char *>(q->answer.data()), n);
        if (n < NS_HFIXEDSZ || std::memcmp(answer.data(), q->message.data(), 2) != 0 || dns_question_name(answer) != q->name)
            return await_answer(q, upstream);
        q->done = true;
        q->timer->cancel();
        --in_flight_;
        answered(q, std::move(answer));
    });
}

void DnsGuard::ask_tcp(std::shared_ptr<Query> q, size_t upstream) {
    if (upstream >= upstreams_.size()) {
        --in_flight_;
        return reply(q, dns_error_reply(q->message, ns_r_servfail));
    }
    const udp::endpoint &server = upstreams_[upstream];
    // Each step that fails asks the next server; the timer only closes the socket, which fails the step.
    const auto next = [this, q, upstream] {
        q->timer->cancel();
        ask_tcp(q, upstream + 1);
    };
    boost::system::error_code ec;
    q->stream = std::make_unique<tcp::socket>(io_);
    q->stream->open(server.address().is_v6() ? tcp::v6() : tcp::v4(), ec);
    const unsigned mark = kGuardMark;
    if (!ec && setsockopt(q->stream->native_handle(), SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0)
        ec = boost::system::error_code(errno, boost::system::system_category());
    if (ec) return ask_tcp(q, upstream + 1);
    q->timer = std::make_unique<asio::steady_timer>(io_, kUpstreamTimeout);
    q->timer->async_wait([q](const boost::system::error_code &e) {
        if (e || q->done) return;
        boost::system::error_code ignored;
        q->stream->close(ignored);
    });
    q->framed = tcp_framed(q->message);
    q->stream->async_connect(tcp::endpoint(server.address(), server.port()), [this, q, next](const boost::system::error_code &e) {
        if (e) return next();
        asio::async_write(*q->stream, asio::buffer(q->framed), [this, q, next](const boost::system::error_code &e, size_t) {
            if (e) return next();
            asio::async_read(*q->stream, asio::buffer(q->length), [this, q, next](const boost::system::error_code &e, size_t) {
                const size_t n = (static_cast<size_t>(q->length[0]) << 8) | q->length[1];
                if (e || n < NS_HFIXEDSZ) return next();
                asio::async_read(*q->stream, asio::buffer(q->answer.data(), n), [this, q, next, n](const boost::system::error_code &e, size_t) {
                    if (e) return next();
                    std::string answer(reinterpret_cast<const char *>(q->answer.data()), n);
                    if (std::memcmp(answer.data(), q->message.data(), 2) != 0 || dns_question_name(answer) != q->name) return next();
                    q->done = true;
                    q->timer->cancel();
                    boost::system::error_code ignored;
                    q->stream->close(ignored);
                    --in_flight_;
                    answered(q, std::move(answer));
                });
            });
        });
    });
}

void DnsGuard::answered(std::shared_ptr<Query> q, std::string answer) {
    // Judged again now: the policy may have changed while the name was asked (a name removed meanwhile
    // must not be pinned after its set was emptied).
    const NameVerdict verdict = name_verdict(q->name, policy_.allow_names, policy_.deny_names, policy_.allow_only);
    if (verdict == NameVerdict::Drop) return reply(q, dns_error_reply(q->message, ns_r_refused));
    const bool intercept = verdict != NameVerdict::Refuse &&
                           std::any_of(intercepted_.begin(), intercepted_.end(), [&](const std::string &p) { return name_matches(p, q->name); });
    if (verdict == NameVerdict::Pass && !intercept) return reply(q, answer);
    const std::vector<DnsAddress> addresses = dns_answer_addresses(answer);
    if (addresses.size() > kMaxPinnedPerAnswer) return reply(q, dns_error_reply(q->message, ns_r_servfail));
    const bool allow = verdict == NameVerdict::Pin;
    std::string commands;
    const auto pin = [&](const DnsAddress &a, const char *set) {
        const unsigned seconds = std::clamp(a.ttl, kPinFloorSeconds, kPinCeilingSeconds);
        commands += std::string("add element inet ") + kEgressTable + " " + set + " { " + a.address + " timeout " + std::to_string(seconds) + "s }\n";
    };
    for (const auto &a : addresses) {
        if (verdict != NameVerdict::Pass) pin(a, allow ? (a.v6 ? kNamesAllowed6 : kNamesAllowed4) : (a.v6 ? kNamesDenied6 : kNamesDenied4));
        if (intercept) pin(a, a.v6 ? kIntercept6 : kIntercept4);
    }
    const std::string failed = commands.empty() ? "" : nft_(commands);
    if (!failed.empty()) return reply(q, dns_error_reply(q->message, ns_r_servfail));  // never an address that is not pinned
    reply(q, verdict == NameVerdict::Refuse ? dns_error_reply(q->message, ns_r_refused) : answer);
}

void DnsGuard::reply(const std::shared_ptr<Query> &q, const std::string &message) {
    if (!message.empty()) q->send(message);
}

}  // namespace sandbox
