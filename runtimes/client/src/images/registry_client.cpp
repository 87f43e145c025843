#include "images/registry_client.hpp"
#include <actionhost/common/base64.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <actionhost/common/digest.hpp>
#include <actionhost/runtime_support/registry_credentials.hpp>
#include <actionhost/runtime_support/url_encode.hpp>

namespace actionhost::client::images {

namespace {

constexpr size_t kMaxDocumentBytes = 4 << 20;  // a manifest or an index
constexpr size_t kMaxErrorBytes = 64 << 10;

// Whether "host[:port]" names this machine's loopback: "localhost", or an address literal in 127.0.0.0/8
// or ::1 — never a name that merely starts with "127." (127.evil.example resolves anywhere).
bool loopback_host(const std::string &host_port) {
    std::string host = host_port;
    if (!host.empty() && host[0] == '[') host = host.substr(1, host.find(']') - 1);
    else if (const size_t colon = host.rfind(':'); colon != std::string::npos && host.find(':') == colon) host = host.substr(0, colon);
    if (host == "localhost") return true;
    in_addr v4{};
    if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

// The host:port part of "scheme://host:port/path".
std::string authority_of(const std::string &url) {
    const size_t start = url.find("://");
    if (start == std::string::npos) return "";
    const size_t end = url.find('/', start + 3);
    return url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
}

// The parameters of a WWW-Authenticate challenge: Bearer realm="...",service="...",scope="...".
std::map<std::string, std::string> challenge_parameters(const std::string &challenge) {
    std::map<std::string, std::string> out;
    size_t i = challenge.find(' ');
    while (i != std::string::npos && i < challenge.size()) {
        while (i < challenge.size() && (challenge[i] == ' ' || challenge[i] == ',')) ++i;
        const size_t eq = challenge.find('=', i);
        if (eq == std::string::npos) break;
        const std::string key = challenge.substr(i, eq - i);
        std::string value;
        size_t j = eq + 1;
        if (j < challenge.size() && challenge[j] == '"') {
            const size_t close = challenge.find('"', j + 1);
            value = challenge.substr(j + 1, close == std::string::npos ? std::string::npos : close - j - 1);
            j = close == std::string::npos ? challenge.size() : close + 1;
        } else {
            const size_t comma = challenge.find(',', j);
            value = challenge.substr(j, comma == std::string::npos ? std::string::npos : comma - j);
            j = comma == std::string::npos ? challenge.size() : comma;
        }
        out[key] = value;
        i = j;
    }
    return out;
}

std::string header_of(const std::map<std::string, std::string> &headers, const std::string &name) {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
}

std::string error_text(int status, const std::string &body) {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("errors") && j["errors"].is_array() && !j["errors"].empty() && j["errors"][0].is_object())
        return "HTTP " + std::to_string(status) + " " + j["errors"][0].value("code", "") + ": " + j["errors"][0].value("message", "");
    return "HTTP " + std::to_string(status) + (body.empty() ? "" : ": " + body.substr(0, 300));
}

}  // namespace

std::string registry_base_url(const std::string &registry, const std::vector<std::string> &insecure) {
    if (registry == "docker.io") return "https://registry-1.docker.io";
    const bool plain = loopback_host(registry) || std::find(insecure.begin(), insecure.end(), registry) != insecure.end();
    return (plain ? "http://" : "https://") + registry;
}

RegistryClient::RegistryClient(runtime_support::ImageReference reference, RegistrySettings settings)
    : ref_(std::move(reference)), settings_(std::move(settings)) {}

RegistryClient::~RegistryClient() = default;

RegistryClient::Answer RegistryClient::send_once(const std::string &url, const Outgoing &out,
                                                 const std::function<bool(std::string_view)> &sink, bool authorized) {
    auto [endpoint, path] = split_url(url);
    const std::string key = url.substr(0, url.find('/', url.find("://") + 3));
    auto &connection = connections_[key];
    if (!connection) connection = std::make_unique<HttpConnection>(endpoint);
    HttpRequest req;
    req.method = out.method;
    req.path = path;
    req.timeout_s = settings_.timeout_s;
    req.headers = out.headers;
    req.body = out.body;
    req.content_type = out.content_type;
    req.write_body = out.write_body;
    if (authorized && !authorization_.empty()) req.headers.emplace_back("Authorization", authorization_);
    Answer answer;
    bool streaming = false;
    req.on_head = [&](int status, const std::map<std::string, std::string> &) {
        streaming = status == 200 && sink != nullptr;
        return true;
    };
    req.on_body = [&](std::string_view piece) {
        if (streaming) return sink(piece);
        if (answer.body.size() + piece.size() > kMaxDocumentBytes) return false;
        answer.body.append(piece);
        return true;
    };
    HttpResponse r = connection->send(req);
    answer.status = r.status;
    answer.headers = r.headers;
    return answer;
}

RegistryClient::Answer RegistryClient::send(const std::string &path_or_url, const Outgoing &out,
                                            const std::function<bool(std::string_view)> &sink) {
    std::string url = path_or_url.rfind("http", 0) == 0 ? path_or_url : base_ + path_or_url;
    bool same_host = true;
    for (int hop = 0; hop < 5; ++hop) {
        Answer a = send_once(url, out, sink, same_host);
        if (a.status == 401 && same_host) {
            const std::string challenge = header_of(a.headers, "www-authenticate");
            if (challenge.empty()) throw std::runtime_error(url + " answered 401 without saying how to authenticate");
            const bool had = !authorization_.empty();
            authorize(challenge);
            a = send_once(url, out, sink, true);
            if (a.status == 401 || a.status == 403)
                throw std::runtime_error("the registry " + credential_server() + " refused the credentials" +
                                         (had ? "" : " (none in the docker CLI's config.json: docker login " + credential_server() + ")") +
                                         ": " + error_text(a.status, a.body));
        }
        // Redirects are followed for reads only: an upload goes where the registry's Location says.
        if (out.method == "GET" && (a.status == 301 || a.status == 302 || a.status == 303 || a.status == 307 || a.status == 308)) {
            std::string location = header_of(a.headers, "location");
            if (location.empty()) throw std::runtime_error(url + " redirected nowhere");
            if (location[0] == '/') location = url.substr(0, url.find('/', url.find("://") + 3)) + location;
            if (location.rfind("https://", 0) != 0 && !loopback_host(authority_of(location)))
                throw std::runtime_error(url + " redirected to " + location + ", which is not https");
            same_host = authority_of(location) == authority_of(base_);
            url = location;
            continue;
        }
        return a;
    }
    throw std::runtime_error(url + " redirected more than 5 times");
}

// The credentials of the server being asked: through a mirror, the mirror's own (if any), never Docker
// Hub's — a mirror's challenge may name any realm, and Hub's password would go there.
std::string RegistryClient::credential_server() const {
    return base_ == registry_base_url(ref_.registry, settings_.insecure) ? ref_.registry : authority_of(base_);
}

void RegistryClient::authorize(const std::string &challenge) {
    const std::string server = credential_server();
    const auto creds = runtime_support::registry_credentials(settings_.docker_config_dir, server);
    const std::string scheme = challenge.substr(0, challenge.find(' '));
    std::string basic;
    if (creds && !creds->username.empty()) basic = "Basic " + common::base64_encode(creds->username + ":" + creds->password);
    if (scheme == "Basic" || scheme == "basic") {
        if (basic.empty())
            throw std::runtime_error("the registry " + server + " asks for a user and password; none is in the docker CLI's "
                                     "config.json (docker login " + server + ")");
        authorization_ = basic;
        return;
    }
    if (scheme != "Bearer" && scheme != "bearer") throw std::runtime_error("the registry asks for '" + scheme + "' authentication, which is not supported");
    auto params = challenge_parameters(challenge);
    const std::string realm = params["realm"];
    if (realm.rfind("https://", 0) != 0 && !(realm.rfind("http://", 0) == 0 && loopback_host(authority_of(realm))))
        throw std::runtime_error("the registry's token service " + realm + " is not https");
    std::string scope = params.count("scope") ? params["scope"] : "repository:" + ref_.path + (pushing_ ? ":pull,push" : ":pull");
    std::string query = "?scope=" + runtime_support::url_encode(scope);
    if (params.count("service")) query += "&service=" + runtime_support::url_encode(params["service"]);
    auto [endpoint, path] = split_url(realm + query);
    HttpConnection token_connection(endpoint);
    HttpRequest req;
    req.path = path;
    req.timeout_s = settings_.timeout_s;
    if (!basic.empty()) req.headers.emplace_back("Authorization", basic);
    std::string body;  // a token is a few kB: anything past 1 MiB is not one
    req.on_body = [&](std::string_view piece) {
        if (body.size() + piece.size() > (1u << 20)) return false;
        body.append(piece);
        return true;
    };
    HttpResponse r = token_connection.send(req);
    r.body = std::move(body);
    if (r.status != 200) throw std::runtime_error("the registry's token service " + realm + " answered " + error_text(r.status, r.body));
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    std::string token = j.is_object() ? j.value("token", j.value("access_token", std::string())) : std::string();
    if (token.empty()) throw std::runtime_error("the registry's token service " + realm + " gave no token");
    authorization_ = "Bearer " + token;
}

FetchedDocument RegistryClient::manifest(const std::string &reference) {
    std::vector<std::string> bases;
    if (ref_.registry == "docker.io")
        for (const auto &m : settings_.mirrors) {
            std::string b = m;
            while (!b.empty() && b.back() == '/') b.pop_back();
            if (b.rfind("http://", 0) == 0 && !loopback_host(authority_of(b)) &&
                std::find(settings_.insecure.begin(), settings_.insecure.end(), authority_of(b)) == settings_.insecure.end())
                throw std::runtime_error("the registry mirror " + m + " is plain http and neither on the loopback nor listed in sandbox.insecure_registries");
            bases.push_back(b);
        }
    bases.push_back(registry_base_url(ref_.registry, settings_.insecure));
    std::string why;
    for (const auto &b : bases) {
        base_ = b;
        authorization_.clear();
        Answer a;
        try {
            a = send("/v2/" + ref_.path + "/manifests/" + reference, Outgoing::get(media::kAcceptManifests), nullptr);
        } catch (const TransportError &e) {
            why += (why.empty() ? "" : "; ") + b + ": " + e.what();
            continue;
        }
        if (a.status != 200) {
            why += (why.empty() ? "" : "; ") + b + ": " + error_text(a.status, a.body);
            if (a.status == 404 || a.status >= 500) continue;  // a mirror without it: the next one
            break;
        }
        FetchedDocument doc;
        doc.bytes = std::move(a.body);
        doc.media_type = header_of(a.headers, "content-type");
        common::Digest sha = common::Digest::sha256();
        sha.update(doc.bytes);
        doc.digest = "sha256:" + sha.hex();
        if (reference.rfind("sha256:", 0) == 0 && doc.digest != reference)
            throw std::runtime_error("the registry sent a manifest whose digest is " + doc.digest + ", not " + reference + ": refused");
        return doc;
    }
    throw std::runtime_error("cannot get " + ref_.path + ":" + reference + " from " + ref_.registry + ": " + why);
}

void RegistryClient::blob(const Descriptor &d, const BlobStore &store, const std::function<void(int64_t)> &progress) {
    if (store.has(d.digest)) return;
    if (base_.empty()) to_origin();  // a blob asked for before any manifest: from the registry itself
    if (d.size < 0 || d.size > settings_.max_blob_bytes)
        throw std::runtime_error("the blob " + d.digest + " of " + ref_.path + " is " + std::to_string(d.size) +
                                 " bytes, past what an image may hold (sandbox.image_max_size_mb): refused");
    BlobWriter writer = store.writer(d.digest, d.size);
    auto last = std::chrono::steady_clock::now();
    std::string failure;
    Answer a = send("/v2/" + ref_.path + "/blobs/" + d.digest, Outgoing::get(""), [&](std::string_view piece) {
        try {
            writer.write(piece);
        } catch (const std::exception &e) {
            failure = e.what();
            return false;
        }
        if (progress && std::chrono::steady_clock::now() - last > std::chrono::milliseconds(500)) {
            last = std::chrono::steady_clock::now();
            progress(writer.written());
        }
        return true;
    });
    if (!failure.empty()) throw std::runtime_error(failure);
    if (a.status != 200) throw std::runtime_error("cannot get the blob " + d.digest + " of " + ref_.path + ": " + error_text(a.status, a.body));
    writer.commit();
    if (progress) progress(writer.written());
}

void RegistryClient::to_registry() {
    if (pushing_) return;
    pushing_ = true;
    base_ = registry_base_url(ref_.registry, settings_.insecure);
    authorization_.clear();
}

bool RegistryClient::has_blob(const std::string &digest) {
    to_registry();
    Outgoing head;
    head.method = "HEAD";
    const Answer a = send("/v2/" + ref_.path + "/blobs/" + digest, head, nullptr);
    if (a.status == 200) return true;
    if (a.status == 404) return false;
    throw std::runtime_error("the registry " + ref_.registry + " answered " + error_text(a.status, a.body) + " for the blob " + digest);
}

void RegistryClient::upload_blob(const Descriptor &d, const BlobStore &store, const std::function<void(int64_t)> &progress) {
    to_registry();
    Outgoing start;
    start.method = "POST";
    const Answer started = send("/v2/" + ref_.path + "/blobs/uploads/", start, nullptr);
    if (started.status != 202)
        throw std::runtime_error("the registry " + ref_.registry + " refused an upload to " + ref_.path + ": " + error_text(started.status, started.body));
    std::string location = header_of(started.headers, "location");
    if (location.empty()) throw std::runtime_error("the registry " + ref_.registry + " started an upload without saying where");
    if (location[0] == '/') location = base_ + location;
    if (authority_of(location) != authority_of(base_))
        throw std::runtime_error("the registry " + ref_.registry + " sent the upload to another host (" + authority_of(location) + "): refused");
    location += std::string(location.find('?') == std::string::npos ? "?" : "&") + "digest=" + runtime_support::url_encode(d.digest);
    // One PUT with the whole blob, streamed from the store's file (chunked), never held in memory.
    const std::string path = store.path(d.digest);
    Outgoing put;
    put.method = "PUT";
    put.content_type = "application/octet-stream";
    put.write_body = [&](std::ostream &out) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot read the blob " + path);
        std::vector<char> buffer(size_t{1} << 20);
        int64_t sent = 0;
        auto last = std::chrono::steady_clock::now();
        while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
            out.write(buffer.data(), in.gcount());
            sent += in.gcount();
            if (progress && std::chrono::steady_clock::now() - last > std::chrono::milliseconds(500)) {
                last = std::chrono::steady_clock::now();
                progress(sent);
            }
        }
    };
    const Answer done = send(location, put, nullptr);
    if (done.status != 201)
        throw std::runtime_error("the registry " + ref_.registry + " refused the blob " + d.digest + ": " + error_text(done.status, done.body));
    if (progress) progress(d.size);
}

std::string RegistryClient::put_manifest(const std::string &tag, const std::string &bytes, const std::string &media_type) {
    to_registry();
    Outgoing put;
    put.method = "PUT";
    put.body = bytes;
    put.content_type = media_type;
    const Answer a = send("/v2/" + ref_.path + "/manifests/" + tag, put, nullptr);
    if (a.status != 201)
        throw std::runtime_error("the registry " + ref_.registry + " refused the manifest for " + ref_.path + ":" + tag + ": " + error_text(a.status, a.body));
    return header_of(a.headers, "docker-content-digest");
}

void RegistryClient::to_origin() {
    const std::string origin = registry_base_url(ref_.registry, settings_.insecure);
    if (base_ == origin) return;
    base_ = origin;
    authorization_.clear();
}

std::vector<std::string> RegistryClient::list(const std::string &first_path, const std::string &key, size_t max_entries) {
    to_origin();
    std::vector<std::string> out;
    std::string path = first_path;
    // Bounded: a registry whose "next" page never ends stops at max_entries, as a broken one does.
    for (int page = 0; page < 1000 && !path.empty() && out.size() < max_entries; ++page) {
        const Answer a = send(path, Outgoing::get("application/json"), nullptr);
        if (a.status != 200) throw std::runtime_error("the registry " + ref_.registry + " answered " + error_text(a.status, a.body) + " for " + path);
        const auto j = nlohmann::json::parse(a.body, nullptr, false);
        if (!j.is_object()) throw std::runtime_error("the registry " + ref_.registry + " answered " + path + " with no JSON object");
        // A repository without tags is listed with "tags": null by distribution.
        if (j.contains(key) && j[key].is_array())
            for (const auto &e : j[key])
                if (e.is_string() && out.size() < max_entries) out.push_back(e.get<std::string>());
        // Link: </v2/_catalog?last=x&n=100>; rel="next"
        const std::string link = header_of(a.headers, "link");
        const size_t open = link.find('<'), close = link.find('>');
        path = link.find("rel=\"next\"") != std::string::npos && open != std::string::npos && close > open
                   ? link.substr(open + 1, close - open - 1)
                   : "";
        if (!path.empty() && path[0] != '/') path.clear();  // only a path on the same registry is followed
    }
    return out;
}

std::vector<std::string> RegistryClient::tags(size_t max_entries) {
    return list("/v2/" + ref_.path + "/tags/list?n=1000", "tags", max_entries);
}

std::vector<std::string> RegistryClient::catalog(size_t max_entries) {
    return list("/v2/_catalog?n=1000", "repositories", max_entries);
}

}  // namespace actionhost::client::images
