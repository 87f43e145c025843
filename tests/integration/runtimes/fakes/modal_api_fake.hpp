// ModalApiFake: Modal's gRPC service modal.client.ModalClient (the RPCs the modal backend calls) on
// 127.0.0.1 over plaintext HTTP/2 (h2c). Apps, environments, app-owned secrets, images (built on the
// first ImageJoinStreaming, with a log entry), sandboxes whose entrypoint really runs on this machine
// (ProcessBox) with a tunnel (TunnelProxy) per open port, SandboxWait/Terminate, and ContainerExec with
// batched output. Records every sandbox it creates.
//
// Lifetimes as Modal documents them: a sandbox ends with GENERIC_STATUS_TIMEOUT `timeout_secs` after its
// task started (5 minutes when 0), and with GENERIC_STATUS_IDLE_TIMEOUT after `idle_timeout_secs`
// without activity — no exec running, no TCP connection open over one of its tunnels. Nothing pauses a
// Modal sandbox and nothing extends its timeout.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/cloud_fakes/fake_http_server.hpp"

namespace cloud_fakes {

class ModalApiFake {
  public:
    // With `tunnel_tls`, encrypted ports get https:// tunnels with that certificate (unencrypted ports
    // stay plain TCP, as Modal's raw tunnels are).
    ModalApiFake(std::string token_id, std::string token_secret, std::optional<actionhost::testing::TlsServerFiles> tunnel_tls = std::nullopt);
    ~ModalApiFake();

    std::string url() const;  // http://127.0.0.1:<port>

    // The next `count` calls of `rpc` fail with gRPC status `code` (an int of grpc::StatusCode).
    void fail_next(const std::string &rpc, int code, int count = 1);
    // The next image build ends in FAILURE with `exception`.
    void fail_next_image(const std::string &exception);

    std::map<std::string, std::string> sandboxes() const;  // id → "running" or the result's status name
    std::vector<std::string> live_sandboxes() const;       // running, or with processes left
    std::vector<std::string> calls() const;                // "<Rpc> attempt=<x-retry-attempt>"
    std::map<std::string, std::string> last_secret() const;
    std::vector<std::string> last_entrypoint() const;
    // The last SandboxCreate's NetworkAccess: "OPEN", "BLOCKED", or "ALLOWLIST" followed by its allowed_cidrs.
    std::string last_network_access() const;
    // The last SandboxCreate's definition: timeout_secs and idle_timeout_secs (nullopt: not sent).
    uint32_t last_timeout_secs() const;
    std::optional<uint32_t> last_idle_timeout_secs() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace cloud_fakes
