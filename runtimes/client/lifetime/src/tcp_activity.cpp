#include "actionhost/lifetime/tcp_activity.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace actionhost::lifetime {

namespace {

constexpr unsigned kEstablished = 0x01, kSynReceived = 0x03;
constexpr size_t kMaxLines = 1'000'000;  // a bound on a machine with absurdly many sockets

struct Address {
    std::array<unsigned char, 16> bytes{};
    size_t size = 0;  // 4 or 16
    int port = -1;
};

// "0100007F:1F90" (IPv4) or 32 hex digits and a port (IPv6). The kernel prints each 32-bit word of the
// address as the number it is in memory, so copying the parsed word back into memory gives the
// address's bytes in network order on any machine.
std::optional<Address> parse_address(const std::string &text) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos || (colon != 8 && colon != 32)) return std::nullopt;
    Address a;
    a.size = colon / 2;
    try {
        for (size_t word = 0; word < colon / 8; ++word) {
            const auto value = static_cast<uint32_t>(std::stoul(text.substr(word * 8, 8), nullptr, 16));
            std::memcpy(a.bytes.data() + word * 4, &value, 4);
        }
        size_t used = 0;
        a.port = std::stoi(text.substr(colon + 1), &used, 16);
        if (used != text.size() - colon - 1) return std::nullopt;
    } catch (const std::exception &) {
        return std::nullopt;
    }
    return a;
}

bool loopback(const Address &a) {
    if (a.size == 4) return a.bytes[0] == 127;
    static const unsigned char kOne[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::memcmp(a.bytes.data(), kOne, 16) == 0 || (std::memcmp(a.bytes.data(), kMapped, 12) == 0 && a.bytes[12] == 127);
}

bool same_host(const Address &a, const Address &b) { return a.size == b.size && std::memcmp(a.bytes.data(), b.bytes.data(), a.size) == 0; }

}  // namespace

size_t tcp_connections_in(const std::string &proc_net_file, int port, bool ignore_local_peers) {
    std::ifstream in(proc_net_file);
    std::string line;
    if (!std::getline(in, line)) return 0;  // the header: "sl local_address rem_address st ..."
    size_t count = 0;
    for (size_t n = 0; n < kMaxLines && std::getline(in, line); ++n) {
        std::istringstream fields(line);
        std::string slot, local_text, remote_text, state_text;
        if (!(fields >> slot >> local_text >> remote_text >> state_text)) continue;
        const auto local = parse_address(local_text);
        if (!local || local->port != port) continue;
        unsigned state = 0;
        try {
            state = static_cast<unsigned>(std::stoul(state_text, nullptr, 16));
        } catch (const std::exception &) {
            continue;
        }
        if (state != kEstablished && state != kSynReceived) continue;
        if (ignore_local_peers) {
            const auto remote = parse_address(remote_text);
            if (!remote || loopback(*remote) || same_host(*remote, *local)) continue;
        }
        ++count;
    }
    return count;
}

size_t open_tcp_connections(int port, bool ignore_local_peers, const std::string &proc_net_dir) {
    return tcp_connections_in(proc_net_dir + "/tcp", port, ignore_local_peers) +
           tcp_connections_in(proc_net_dir + "/tcp6", port, ignore_local_peers);
}

}  // namespace actionhost::lifetime
