// The host services a backend module calls through ah_runtime_host_t: logging, errors, status,
// configuration, HTTP and waiting for a host to come alive.
#include <actionhost/ext/http_response_headers.h>
#include <actionhost/ext/runtime_images.h>
#include <actionhost/runtime_support/header_line.hpp>

#include <string_view>

#include "actionhost/client/http_transport.hpp"
#include "actionhost/client/wire_client.hpp"
#include "runtime_impl.hpp"

namespace actionhost::client {

void Runtime::Impl::svc_log(const ah_runtime_host_t *h, ah_log_level_t level, const char *msg) {
    of(h)->log(common::from_abi(level), msg ? msg : "");
}

void Runtime::Impl::svc_set_error(const ah_runtime_host_t *h, const char *msg) { of(h)->set_error(msg ? msg : ""); }

void Runtime::Impl::svc_set_status(const ah_runtime_host_t *h, const char *s, const char *detail) {
    of(h)->status(s ? s : "", detail ? detail : "");
}

const char *Runtime::Impl::svc_config_get(const ah_runtime_host_t *h, const char *key) {
    if (!key) return nullptr;
    Impl *self = of(h);
    auto v = self->options.config.get_text(key);
    if (!v) return nullptr;
    std::lock_guard lock(self->config_mutex);
    self->config_strings.push_back(*v);
    return self->config_strings.back().c_str();
}

struct Runtime::Impl::HttpResultData {
    std::string body, error;
    std::vector<std::string> header_lines;
    std::vector<const char *> header_list{nullptr};  // NULL-terminated view of header_lines
};

ah_status_t Runtime::Impl::svc_http_request(const ah_runtime_host_t *, const ah_http_call_t *call, ah_http_result_t *result) {
    if (!call || !result || !call->url) return AH_ERR_INVALID_ARGUMENT;
    auto *data = new HttpResultData();
    result->struct_size = sizeof(ah_http_result_t);
    result->status = 0;
    result->result_data = data;
    result->body = {"", 0};
    result->error = "";
    ah_status_t st = AH_OK;
    try {
        auto [endpoint, path] = split_url(call->url);
        HttpConnection conn(endpoint);
        HttpRequest req;
        req.method = call->method ? call->method : "GET";
        req.path = path;
        req.timeout_s = call->timeout_s > 0 ? call->timeout_s : 60.0;
        if (call->body.ptr && call->body.len) req.body.assign(call->body.ptr, call->body.len);
        for (auto p = call->headers; p && *p; ++p) {
            auto h = runtime_support::split_header_line(*p);
            if (!h) continue;
            if (h->first == "Content-Type" || h->first == "content-type") req.content_type = h->second;
            else req.headers.push_back(std::move(*h));
        }
        HttpResponse r = conn.send(req);
        result->status = r.status;
        data->body = std::move(r.body);
        for (const auto &[name, value] : r.headers) data->header_lines.push_back(name + ": " + value);
        data->header_list.clear();
        for (const auto &line : data->header_lines) data->header_list.push_back(line.c_str());
        data->header_list.push_back(nullptr);
    } catch (const TransportError &e) {
        data->error = e.what();
        st = e.kind() == TransportFailure::Timeout ? AH_ERR_TIMEOUT : AH_ERR_IO;
    } catch (const std::exception &e) {
        data->error = e.what();
        st = AH_ERR_IO;
    }
    result->body = {data->body.data(), data->body.size()};
    result->error = data->error.c_str();
    return st;
}

void Runtime::Impl::svc_http_result_free(const ah_runtime_host_t *, ah_http_result_t *result) {
    if (!result) return;
    delete static_cast<HttpResultData *>(result->result_data);
    result->result_data = nullptr;
    result->body = {"", 0};
    result->error = "";
}

ah_status_t Runtime::Impl::svc_wait_alive(const ah_runtime_host_t *h, const char *url, const char *key, double timeout_s) {
    try {
        WireClient probe(url ? url : "", key ? key : "", of(h)->options.wire_policy);
        return probe.wait_alive(timeout_s) ? AH_OK : AH_ERR_TIMEOUT;
    } catch (const std::exception &e) {
        of(h)->set_error(e.what());
        return AH_ERR_INVALID_ARGUMENT;
    }
}

const char *const *Runtime::Impl::svc_http_response_headers(const ah_runtime_host_t *, const ah_http_result_t *result) {
    static const char *const kNone[] = {nullptr};
    if (!result || !result->result_data) return kNone;
    return static_cast<const HttpResultData *>(result->result_data)->header_list.data();
}

const void *Runtime::Impl::svc_get_extension(const ah_runtime_host_t *, const char *id) {
    static const ah_ext_http_response_headers_t kHeaders{sizeof(ah_ext_http_response_headers_t), svc_http_response_headers};
    static const ah_ext_runtime_images_t kImages{sizeof(ah_ext_runtime_images_t), svc_images_prepare, svc_images_free};
    if (id && std::string_view(id) == AH_EXT_HTTP_RESPONSE_HEADERS) return &kHeaders;
    if (id && std::string_view(id) == AH_EXT_RUNTIME_IMAGES) return &kImages;
    return nullptr;
}

void Runtime::Impl::build_host_view() {
    info.struct_size = sizeof(info);
    info.session_id = session_id.c_str();
    info.install_dir = install_dir.c_str();
    info.host_command_json = host_command_json.c_str();
    info.env_json = env_json.c_str();
    host.struct_size = sizeof(host);
    host.abi_version = AH_ABI_VERSION_INIT;
    host.host_data = this;
    host.info = &info;
    host.log = svc_log;
    host.set_error = svc_set_error;
    host.set_status = svc_set_status;
    host.config_get = svc_config_get;
    host.http_request = svc_http_request;
    host.http_result_free = svc_http_result_free;
    host.wait_alive = svc_wait_alive;
    host.get_extension = svc_get_extension;
}

}  // namespace actionhost::client
