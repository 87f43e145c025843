// Pulling from a registry without a daemon, over the OCI Distribution API v2 (GET /v2/<name>/manifests/
// <reference>, GET /v2/<name>/blobs/<digest>), through the client library's HTTP layer:
//   - authentication as registries ask for it: anonymous, a bearer token from the realm a 401 names
//     (with the user's credentials when the docker CLI's config.json holds some: `docker login` works
//     here too), or HTTP basic auth (a registry behind htpasswd);
//   - https, verified against the system's certificates; plain http only for a registry on the
//     loopback (127.0.0.0/8, ::1, localhost) or one the configuration lists as insecure;
//   - Docker Hub through the configured mirrors first (`sandbox.registry_mirrors`), as dockerd does;
//   - blobs streamed into the store (blob_store.hpp), never held in memory, refused when they are
//     longer than their descriptor says or their digest differs; redirects to another host followed
//     without the credentials.
//
// Threads: one RegistryClient per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <actionhost/runtime_support/image_reference.hpp>

#include "actionhost/client/http_transport.hpp"
#include "images/blob_store.hpp"
#include "images/oci.hpp"

namespace actionhost::client::images {

struct RegistrySettings {
    std::vector<std::string> mirrors;   // base URLs ("https://mirror.example", "http://127.0.0.1:5000") for docker.io
    std::vector<std::string> insecure;  // registry hosts ("name:port") that may be reached over plain http
    std::string docker_config_dir;      // where config.json is ("" = $DOCKER_CONFIG or ~/.docker)
    double timeout_s = 60;              // per request, and per wait for the next piece of a blob
    int64_t max_blob_bytes = int64_t{32} << 30;  // a larger blob is refused before a byte of it is fetched
};

struct FetchedDocument {
    std::string bytes;
    std::string media_type;
    std::string digest;  // sha256 of the bytes, checked against the reference when it is a digest
};

class RegistryClient {
  public:
    RegistryClient(runtime_support::ImageReference reference, RegistrySettings settings);
    ~RegistryClient();

    // The manifest or index `reference` (a tag or a digest) names; std::runtime_error with why.
    FetchedDocument manifest(const std::string &reference);
    // The blob `d` into `store` (verified). `progress` gets the bytes so far now and then.
    void blob(const Descriptor &d, const BlobStore &store, const std::function<void(int64_t)> &progress = {});
    // Pushing (to the registry itself, never a mirror; a token asked for with pull and push scope):
    // whether the repository has the blob already (HEAD), and an upload of one from `store` (POST, then
    // one PUT streaming the store's file). std::runtime_error with the registry's answer.
    bool has_blob(const std::string &digest);
    void upload_blob(const Descriptor &d, const BlobStore &store, const std::function<void(int64_t)> &progress = {});
    // The manifest `bytes` under `tag` (after its blobs); returns the digest the registry gives it.
    std::string put_manifest(const std::string &tag, const std::string &bytes, const std::string &media_type);
    // Listing (the registry itself, never a mirror): the tags of the repository (GET /v2/<path>/tags/list)
    // and the repositories of the whole registry (GET /v2/_catalog), following the registry's pages
    // (Link: <...>; rel="next") up to `max_entries`. std::runtime_error with the registry's answer.
    std::vector<std::string> tags(size_t max_entries = 10000);
    std::vector<std::string> catalog(size_t max_entries = 10000);
    // The base URL requests go to ("https://registry-1.docker.io", a mirror's, ...).
    const std::string &base_url() const { return base_; }

  private:
    struct Answer {
        int status = 0;
        std::map<std::string, std::string> headers;
        std::string body;
    };
    struct Outgoing {
        std::string method = "GET";
        HeaderList headers;
        std::string body, content_type;
        std::function<void(std::ostream &)> write_body;
        static Outgoing get(const std::string &accept) {
            Outgoing o;
            if (!accept.empty()) o.headers.emplace_back("Accept", accept);
            return o;
        }
    };
    // `out` to `path` at the chosen base (or to a full URL) with the current authorization, answering a
    // 401 challenge once; a GET follows redirects. `sink` (when set) takes a 200's body as it arrives
    // instead of collecting it.
    Answer send(const std::string &path_or_url, const Outgoing &out, const std::function<bool(std::string_view)> &sink);
    Answer send_once(const std::string &url, const Outgoing &out, const std::function<bool(std::string_view)> &sink, bool authorized);
    void to_registry();  // the first push call: the registry itself, with push scope
    void to_origin();    // a listing: the registry itself, keeping what a push chose
    std::vector<std::string> list(const std::string &first_path, const std::string &key, size_t max_entries);
    void authorize(const std::string &challenge);
    std::string credential_server() const;  // whose credentials the current base gets: the registry's, or a mirror's own

    runtime_support::ImageReference ref_;
    RegistrySettings settings_;
    std::string base_;           // scheme://host[:port] of the registry (or mirror) in use
    std::string authorization_;  // the Authorization header value, once known
    bool pushing_ = false;
    std::map<std::string, std::unique_ptr<HttpConnection>> connections_;  // by scheme://host:port
};

// The base URL of `registry` ("https://ghcr.io", "http://127.0.0.1:5000"), or std::runtime_error when
// it would be plain http to a host neither on the loopback nor listed as insecure.
std::string registry_base_url(const std::string &registry, const std::vector<std::string> &insecure);

}  // namespace actionhost::client::images
