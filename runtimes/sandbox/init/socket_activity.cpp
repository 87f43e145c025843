#include "socket_activity.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace sandbox {

namespace {

constexpr unsigned long kAcceptCon = 0x10000;  // __SO_ACCEPTCON: a listening socket
constexpr size_t kMaxLines = 1'000'000;        // a bound on a machine with absurdly many sockets

}  // namespace

size_t open_connections(const std::vector<std::string> &paths, const std::string &proc_net_unix) {
    std::ifstream in(proc_net_unix);
    std::string line;
    if (!std::getline(in, line)) return 0;  // the header: "Num RefCount Protocol Flags Type St Inode Path"
    size_t count = 0;
    for (size_t n = 0; n < kMaxLines && std::getline(in, line); ++n) {
        std::istringstream fields(line);
        std::string num, refs, protocol, flags, type, state, inode, path;
        if (!(fields >> num >> refs >> protocol >> flags >> type >> state >> inode >> path)) continue;  // no path
        if (std::find(paths.begin(), paths.end(), path) == paths.end()) continue;
        unsigned long f = 0;
        try {
            f = std::stoul(flags, nullptr, 16);
        } catch (const std::exception &) {
            continue;
        }
        if ((f & kAcceptCon) == 0) ++count;
    }
    return count;
}

}  // namespace sandbox
