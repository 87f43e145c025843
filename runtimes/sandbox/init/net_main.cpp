// ah-sandbox-net: loads a ruleset (nft's language, made by egress_rules.cpp) into the network namespace
// of a sandbox's pid 1, or prints that namespace's refusal counter, or stays on as the sandbox's
// resolver guard (dns_guard.hpp). Run by ah-sandbox-init (outside the sandbox) as the sandbox's creator:
// joining the sandbox's user namespace gives it CAP_NET_ADMIN there and nowhere else. A helper of its
// own so that libnftables is loaded only by sandboxes with a network.
//
//   ah-sandbox-net --pid PID --ruleset TEXT    load TEXT; exit 0, or 1 with nft's error on stderr
//   ah-sandbox-net --pid PID --list [--json]   print the table (its counter, its refusal log) as nft lists it
//   ah-sandbox-net --pid PID --ruleset TEXT --guard [--resolver ADDR]... [--allow-name N]... [--deny-name N]...
//                  [--allow-only] [--proxy]
//       load TEXT, listen on kGuardAddress:53 in the namespace, print "ready", then serve DNS until stdin
//       ends. With --proxy, the first stdin line is the egress proxy's configuration (egress_proxy.hpp:
//       {"secrets": [...], "ca_cert": PEM, "ca_key": PEM, "upstream_ca": PEM}, never on the command
//       line), and the proxy serves on kInterceptPort of the namespace's loopback too. Each stdin line is a JSON request answered by one JSON line on stdout:
//         {"nft": COMMANDS, "allow_names": [...], "deny_names": [...], "allow_only": B}  run COMMANDS (a
//             policy change, egress_ruleset_update), then take the names  -> {"ok": true} | {"error": WHY}
//         {"list": true}   the table in nftables' JSON                     -> {"ok": true, "listing": TEXT}
#include <utility>  // first: Boost 1.74's awaitable.hpp uses std::exchange without including it

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <nftables/libnftables.h>
#include <sched.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <CLI/CLI.hpp>
#include <actionhost/common/json_write.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <nlohmann/json.hpp>
#include <string>

#include "dns_guard.hpp"
#include "egress_proxy.hpp"
#include "egress_secrets.hpp"
#include "egress_rules.hpp"
#include "name_rules.hpp"

namespace {

// Both opened before either is joined: once in the sandbox's user namespace, its /proc entries are no
// longer ours to open.
int open_ns(int pid, const char *kind) {
    const std::string path = "/proc/" + std::to_string(pid) + "/ns/" + kind;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) std::fprintf(stderr, "ah-sandbox-net: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    return fd;
}

bool join(int fd, const char *kind, int flag) {
    const bool ok = setns(fd, flag) == 0;
    if (!ok) std::fprintf(stderr, "ah-sandbox-net: cannot join the sandbox's %s namespace: %s\n", kind, std::strerror(errno));
    close(fd);
    return ok;
}

// One nftables context for the process's life: commands run, their error kept.
class Nft {
  public:
    Nft() : ctx_(nft_ctx_new(NFT_CTX_DEFAULT)) {
        if (ctx_ != nullptr) {
            nft_ctx_buffer_output(ctx_);
            nft_ctx_buffer_error(ctx_);
        }
    }
    ~Nft() {
        if (ctx_ != nullptr) nft_ctx_free(ctx_);
    }
    Nft(const Nft &) = delete;
    Nft &operator=(const Nft &) = delete;
    bool ok() const { return ctx_ != nullptr; }
    // "" when `commands` ran, else nftables' error; what it printed in `output`.
    std::string run(const std::string &commands, bool as_json = false, std::string *output = nullptr) {
        const unsigned flags = nft_ctx_output_get_flags(ctx_);
        nft_ctx_output_set_flags(ctx_, as_json ? (flags | NFT_CTX_OUTPUT_JSON) : (flags & ~NFT_CTX_OUTPUT_JSON));
        const int rc = nft_run_cmd_from_buffer(ctx_, commands.c_str());
        if (output != nullptr) *output = nft_ctx_get_output_buffer(ctx_);
        else (void)nft_ctx_get_output_buffer(ctx_);
        const std::string error = nft_ctx_get_error_buffer(ctx_);
        return rc == 0 ? "" : (error.empty() ? "nftables refused the commands" : error);
    }

  private:
    nft_ctx *ctx_;
};

// The UDP socket the guard listens on, kGuardAddress:53 of the namespace's loopback (bound even before
// the loopback is up: IP_FREEBIND), or -1 with the reason on stderr.
int guard_socket() {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(53);
    inet_pton(AF_INET, sandbox::kGuardAddress, &a.sin_addr);
    if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof on) != 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        std::fprintf(stderr, "ah-sandbox-net: cannot listen on %s:53 in the sandbox: %s\n", sandbox::kGuardAddress, std::strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

void answer(const nlohmann::json &reply) {
    const std::string line = actionhost::common::dump_json(reply) + "\n";
    for (size_t done = 0; done < line.size();) {
        const ssize_t n = write(STDOUT_FILENO, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<size_t>(n);
    }
}

// Name entries normalised; std::invalid_argument for one that is not a name entry.
std::vector<std::string> normalised_names(const std::vector<std::string> &entries) {
    std::vector<std::string> out;
    for (const auto &n : entries) out.push_back(sandbox::normalise_name_entry(n));
    return out;
}

// The first line of stdin (what follows it kept in `rest`), read before anything else may read stdin:
// the proxy's configuration. nullopt at the end of stdin or past 1 MiB.
std::optional<std::string> first_line(std::string &rest) {
    std::string text;
    char chunk[16384];
    while (text.find('\n') == std::string::npos) {
        const ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || text.size() > (1u << 20)) return std::nullopt;
        text.append(chunk, static_cast<size_t>(n));
    }
    const size_t nl = text.find('\n');
    rest = text.substr(nl + 1);
    return text.substr(0, nl);
}

// A listening TCP socket at `address`:`port` of the namespace's loopback (bound before the loopback is
// up: IP_FREEBIND, which IPv6 sockets honour too): the guard's TCP DNS, the proxy's port.
boost::asio::ip::tcp::acceptor tcp_listener(boost::asio::io_context &io, const std::string &address, unsigned short port) {
    namespace asio = boost::asio;
    using tcp = asio::ip::tcp;
    tcp::acceptor a(io);
    const tcp::endpoint at(asio::ip::make_address(address), port);
    const bool v6 = at.address().is_v6();
    a.open(at.protocol());
    const int on = 1;
    if (setsockopt(a.native_handle(), IPPROTO_IP, IP_FREEBIND, &on, sizeof on) != 0)
        throw std::runtime_error(std::string("IP_FREEBIND: ") + std::strerror(errno));
    if (v6) a.set_option(asio::ip::v6_only(true));
    a.bind(at);
    a.listen(64);
    return a;
}

// Serves DNS (and with `proxy`, the egress proxy) and the requests on stdin until stdin ends. `rest`: what
// stdin gave after the proxy's line.
int guard(Nft &nft, const std::vector<std::string> &resolvers, sandbox::NamePolicy policy, std::optional<sandbox::ProxyConfig> proxy,
          const std::string &rest) {
    namespace asio = boost::asio;
    const int fd = guard_socket();
    if (fd < 0) return 1;
    asio::io_context io;
    std::unique_ptr<sandbox::EgressProxy> egress_proxy;
    std::vector<std::string> intercepted;
    if (proxy) {
        intercepted = sandbox::secret_hosts(proxy->secrets);
        try {
            std::vector<asio::ip::tcp::acceptor> listeners;
            listeners.push_back(tcp_listener(io, "127.0.0.1", sandbox::kInterceptPort));
            listeners.push_back(tcp_listener(io, "::1", sandbox::kInterceptPort));
            egress_proxy = std::make_unique<sandbox::EgressProxy>(io, std::move(listeners), std::move(*proxy));
        } catch (const std::exception &e) {
            std::fprintf(stderr, "ah-sandbox-net: cannot start the egress proxy: %s\n", e.what());
            return 1;
        }
    }
    std::vector<asio::ip::udp::endpoint> upstreams;
    for (const auto &r : resolvers) {
        boost::system::error_code ec;
        const auto address = asio::ip::make_address(r, ec);
        if (ec) {
            std::fprintf(stderr, "ah-sandbox-net: the resolver '%s' is not an address\n", r.c_str());
            return 2;
        }
        upstreams.emplace_back(address, 53);
    }
    asio::ip::tcp::acceptor dns_over_tcp(io);
    try {
        dns_over_tcp = tcp_listener(io, sandbox::kGuardAddress, 53);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ah-sandbox-net: cannot listen on %s:53 (TCP) in the sandbox: %s\n", sandbox::kGuardAddress, e.what());
        return 1;
    }
    sandbox::DnsGuard dns(io, asio::ip::udp::socket(io, asio::ip::udp::v4(), fd), std::move(dns_over_tcp), upstreams, std::move(policy),
                          [&nft](const std::string &commands) { return nft.run(commands); }, std::move(intercepted));
    answer({{"ready", true}});
    asio::posix::stream_descriptor in(io, ::dup(STDIN_FILENO));
    asio::streambuf lines;
    std::ostream(&lines) << rest;
    std::function<void()> next = [&] {
        asio::async_read_until(in, lines, '\n', [&](const boost::system::error_code &ec, size_t) {
            if (ec) return io.stop();  // stdin ended: ah-sandbox-init, and so the sandbox, is gone
            std::istream text(&lines);
            std::string line;
            std::getline(text, line);
            const auto request = nlohmann::json::parse(line, nullptr, false);
            try {
                if (!request.is_object()) throw std::invalid_argument("a request is a JSON object");
                if (request.value("list", false)) {
                    std::string listing;
                    const std::string failed = nft.run(std::string("list table inet ") + sandbox::kEgressTable, true, &listing);
                    answer(failed.empty() ? nlohmann::json{{"ok", true}, {"listing", listing}} : nlohmann::json{{"error", failed}});
                } else {
                    // A list that is not of strings throws (nlohmann's type_error): answered as an error.
                    sandbox::NamePolicy next_policy{normalised_names(request.value("allow_names", std::vector<std::string>{})),
                                                    normalised_names(request.value("deny_names", std::vector<std::string>{})),
                                                    request.value("allow_only", false)};
                    const std::string failed = nft.run(request.value("nft", ""));
                    if (failed.empty()) dns.set_policy(std::move(next_policy));
                    answer(failed.empty() ? nlohmann::json{{"ok", true}} : nlohmann::json{{"error", failed}});
                }
            } catch (const std::exception &e) {
                answer({{"error", e.what()}});
            }
            next();
        });
    };
    next();
    io.run();
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    CLI::App app{"loads or lists a sandbox's egress filter, or serves as its resolver guard"};
    int pid = 0;
    std::string ruleset;
    bool list = false, as_json = false, serve = false, allow_only = false, with_proxy = false;
    std::vector<std::string> resolvers, allow_names, deny_names;
    app.add_option("--pid", pid, "the sandbox's pid 1 (as the caller sees it)")->required()->check(CLI::PositiveNumber);
    app.add_option("--ruleset", ruleset, "the ruleset to load");
    app.add_flag("--list", list, "print the filter's table");
    app.add_flag("--json", as_json, "with --list: in nftables' JSON");
    app.add_flag("--guard", serve, "then stay on as the sandbox's resolver guard (until stdin ends)");
    app.add_option("--resolver", resolvers, "with --guard: an upstream resolver's address (repeated; in order)");
    app.add_option("--allow-name", allow_names, "with --guard: a name entry of the allow list (repeated)");
    app.add_option("--deny-name", deny_names, "with --guard: a name entry of the deny list (repeated)");
    app.add_flag("--allow-only", allow_only, "with --guard: an allow list is in force");
    app.add_flag("--proxy", with_proxy, "with --guard: serve the egress proxy too (its configuration: stdin's first line)");
    CLI11_PARSE(app, argc, argv);
    // It may hold the sandbox's secrets and its CA's key for the sandbox's whole life: no core file, no
    // same-user tracing or /proc/<pid>/mem, and no working directory of the caller's held.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    (void)!chdir("/");
    if (list == !ruleset.empty() || (serve && list)) {
        std::fprintf(stderr, "ah-sandbox-net: give --ruleset (and maybe --guard) or --list\n");
        return 2;
    }
    sandbox::NamePolicy names;
    try {
        names.allow_names = normalised_names(allow_names);
        names.deny_names = normalised_names(deny_names);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ah-sandbox-net: %s\n", e.what());
        return 2;
    }
    names.allow_only = allow_only;
    // The proxy's configuration, checked before the namespace is touched.
    std::optional<sandbox::ProxyConfig> proxy;
    std::string rest;
    if (with_proxy) {
        if (!serve) {
            std::fprintf(stderr, "ah-sandbox-net: --proxy goes with --guard\n");
            return 2;
        }
        const auto line = first_line(rest);
        const auto config = nlohmann::json::parse(line.value_or(""), nullptr, false);
        try {
            if (!config.is_object()) throw std::invalid_argument("its first stdin line is not a JSON object");
            proxy = sandbox::ProxyConfig{sandbox::secrets_from_wire(config.value("secrets", nlohmann::json())),
                                         config.value("ca_cert", std::string()), config.value("ca_key", std::string()),
                                         config.value("upstream_ca", std::string())};
        } catch (const std::exception &e) {
            std::fprintf(stderr, "ah-sandbox-net: the egress proxy's configuration: %s\n", e.what());
            return 2;
        }
    }
    if (resolvers.empty()) resolvers.push_back(sandbox::kSandboxDnsAddress);
    // The user namespace first: it is what grants the right to enter the network namespace.
    const int user_ns = open_ns(pid, "user"), net_ns = open_ns(pid, "net");
    if (user_ns < 0 || net_ns < 0) return 1;
    if (!join(user_ns, "user", CLONE_NEWUSER) || !join(net_ns, "net", CLONE_NEWNET)) return 1;
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  // again: a change of credentials (the user namespace's) may reset it
    Nft nft;
    if (!nft.ok()) {
        std::fprintf(stderr, "ah-sandbox-net: cannot make an nftables context\n");
        return 1;
    }
    std::string output;
    const std::string failed = list ? nft.run(std::string("list table inet ") + sandbox::kEgressTable, as_json, &output) : nft.run(ruleset);
    std::fputs(output.c_str(), stdout);
    std::fflush(stdout);
    if (!failed.empty()) {
        std::fprintf(stderr, "ah-sandbox-net: nftables refused %s: %s\n", list ? "the listing" : "the ruleset", failed.c_str());
        return 1;
    }
    return serve ? guard(nft, resolvers, std::move(names), std::move(proxy), rest) : 0;
}
