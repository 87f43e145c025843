// ah-sandbox-net: loads a ruleset (nft's language, made by egress_rules.cpp) into the network namespace
// of a sandbox's pid 1, or prints that namespace's refusal counter. Run by ah-sandbox-init (outside the
// sandbox) as the sandbox's creator: joining the sandbox's user namespace gives it CAP_NET_ADMIN there
// and nowhere else. A helper of its own so that libnftables is loaded only by sandboxes with a network.
//
//   ah-sandbox-net --pid PID --ruleset TEXT    load TEXT; exit 0, or 1 with nft's error on stderr
//   ah-sandbox-net --pid PID --list [--json]   print the table (its counter, its refusal log) as nft lists it
#include <fcntl.h>
#include <nftables/libnftables.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "egress_rules.hpp"

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

}  // namespace

int main(int argc, char **argv) {
    CLI::App app{"loads or lists a sandbox's egress filter"};
    int pid = 0;
    std::string ruleset;
    bool list = false, as_json = false;
    app.add_option("--pid", pid, "the sandbox's pid 1 (as the caller sees it)")->required()->check(CLI::PositiveNumber);
    app.add_option("--ruleset", ruleset, "the ruleset to load");
    app.add_flag("--list", list, "print the filter's table");
    app.add_flag("--json", as_json, "with --list: in nftables' JSON");
    CLI11_PARSE(app, argc, argv);
    if (list == !ruleset.empty()) {
        std::fprintf(stderr, "ah-sandbox-net: give --ruleset or --list\n");
        return 2;
    }
    // The user namespace first: it is what grants the right to enter the network namespace.
    const int user_ns = open_ns(pid, "user"), net_ns = open_ns(pid, "net");
    if (user_ns < 0 || net_ns < 0) return 1;
    if (!join(user_ns, "user", CLONE_NEWUSER) || !join(net_ns, "net", CLONE_NEWNET)) return 1;
    nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
    if (nft == nullptr) {
        std::fprintf(stderr, "ah-sandbox-net: cannot make an nftables context\n");
        return 1;
    }
    nft_ctx_buffer_output(nft);
    if (as_json) nft_ctx_output_set_flags(nft, nft_ctx_output_get_flags(nft) | NFT_CTX_OUTPUT_JSON);
    nft_ctx_buffer_error(nft);
    const std::string command = list ? std::string("list table inet ") + sandbox::kEgressTable : ruleset;
    const int rc = nft_run_cmd_from_buffer(nft, command.c_str());
    std::fputs(nft_ctx_get_output_buffer(nft), stdout);
    if (rc != 0)
        std::fprintf(stderr, "ah-sandbox-net: nftables refused %s: %s\n", list ? "the listing" : "the ruleset", nft_ctx_get_error_buffer(nft));
    nft_ctx_free(nft);
    return rc == 0 ? 0 : 1;
}
