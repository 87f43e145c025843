// The kernel connection file (Jupyter "connection files"): transport, ip, the five channel ports, the
// signature scheme and key. We pick the ports (free ones on 127.0.0.1) and a random key, then the kernel
// binds them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::jupyter {

struct ConnectionInfo {
    std::string ip = "127.0.0.1";
    std::string transport = "tcp";
    int shell_port = 0;
    int iopub_port = 0;
    int stdin_port = 0;
    int control_port = 0;
    int hb_port = 0;
    std::string key;  // HMAC key (random hex)
    std::string signature_scheme = "hmac-sha256";
    std::string kernel_name = "python3";

    // "tcp://127.0.0.1:<port>"
    std::string endpoint(int port) const;
    nlohmann::json to_json() const;
};

// Five distinct free TCP ports on 127.0.0.1 (bound at once, then released) and a 32-byte random key.
// Throws std::runtime_error when the OS refuses sockets.
ConnectionInfo make_connection_info();

// Writes the connection file with mode 0600. Throws std::runtime_error on failure.
void write_connection_file(const ConnectionInfo &info, const std::string &path);

}  // namespace actionhost::jupyter
