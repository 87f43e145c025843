// The Modal calls the modal backend makes, over gRPC (service modal.client.ModalClient; the interface of
// modal-client v1.1.4, see docs/runtimes.md): app, environment, image from a registry tag, secret,
// sandbox create/task/tunnels/wait/terminate. Each call carries the token metadata and is retried as
// the Python client retries (DEADLINE_EXCEEDED, UNAVAILABLE, CANCELLED, INTERNAL, UNKNOWN: ≤3 retries,
// 0.1 s doubling to 1 s, with x-idempotency-key / x-retry-attempt / x-modal-timestamp).
#pragma once

#include <actionhost/runtime.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "modal_api.pb.h"

namespace modal {

class ModalApi {
  public:
    // `server_url`: https://host[:port] (TLS), http://host[:port] (plaintext h2c) or unix:/path.
    // Throws std::invalid_argument for anything else.
    ModalApi(const ah_runtime_host_t *host, const std::string &server_url, const std::string &token_id,
             const std::string &token_secret);
    ~ModalApi();

    std::string app_get_or_create(const std::string &app_name, const std::string &environment);
    std::string image_builder_version(const std::string &environment);
    // Image.from_registry(tag): ImageGetOrCreate, then ImageJoinStreaming until built. Throws with the
    // build's exception when it failed, Timeout when it takes longer than `timeout_s`.
    std::string image_from_registry(const std::string &app_id, const std::string &builder_version, const std::string &tag,
                                    double timeout_s);
    std::string secret_from_dict(const std::string &app_id, const std::map<std::string, std::string> &env);
    std::string sandbox_create(const std::string &app_id, const modal::client::Sandbox &definition);
    // The task id once scheduled (nullopt before); throws when the sandbox ended first.
    std::optional<std::string> task_id(const std::string &sandbox_id);
    // The tunnel of `container_port`, or nullopt while the server answers TIMEOUT (not ready yet).
    std::optional<modal::client::TunnelData> tunnel(const std::string &sandbox_id, uint32_t container_port, float timeout_s);
    // The sandbox's result once it ended; nullopt while it runs (SandboxWait with timeout 0).
    std::optional<modal::client::GenericResult> result(const std::string &sandbox_id);
    void terminate(const std::string &sandbox_id);

    const std::string &server_url() const { return server_url_; }

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string server_url_;
};

// "GENERIC_STATUS_FAILURE: <exception> (exit code N)".
std::string describe(const modal::client::GenericResult &r);

}  // namespace modal
