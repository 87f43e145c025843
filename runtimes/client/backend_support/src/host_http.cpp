#include "actionhost/runtime_support/host_http.hpp"

#include "actionhost/runtime_support/header_line.hpp"

#include <actionhost/ext/http_response_headers.h>

namespace actionhost::runtime_support {

HostHttpReply host_http_request(const ah_runtime_host_t *host, const std::string &method, const std::string &url,
                                const std::vector<std::string> &headers, const std::string &body, double timeout_s) {
    std::vector<const char *> lines;
    for (const auto &h : headers) lines.push_back(h.c_str());
    lines.push_back(nullptr);
    ah_http_call_t c{};
    c.struct_size = sizeof c;
    c.method = method.c_str();
    c.url = url.c_str();
    c.headers = headers.empty() ? nullptr : lines.data();
    c.body = {body.data(), body.size()};
    c.timeout_s = timeout_s;
    ah_http_result_t r{};
    r.struct_size = sizeof r;
    HostHttpReply reply;
    reply.transport = host->http_request(host, &c, &r);
    reply.status = r.status;
    if (r.body.ptr) reply.body.assign(r.body.ptr, r.body.len);
    if (r.error) reply.error = r.error;
    const auto *ext = host->get_extension
                          ? static_cast<const ah_ext_http_response_headers_t *>(host->get_extension(host, AH_EXT_HTTP_RESPONSE_HEADERS))
                          : nullptr;
    if (ext && ext->headers) {
        for (const char *const *line = ext->headers(host, &r); line && *line; ++line)
            if (auto h = split_header_line(*line)) reply.headers[h->first] = h->second;
    }
    host->http_result_free(host, &r);
    return reply;
}

}  // namespace actionhost::runtime_support
