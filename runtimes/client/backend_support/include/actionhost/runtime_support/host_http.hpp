// One HTTP request through the client's ah_runtime_host_t.http_request, with the C structs filled and
// the result copied and freed here: every backend that speaks HTTP to its provider goes through this.
#pragma once

#include <actionhost/runtime.h>

#include <map>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

struct HostHttpReply {
    ah_status_t transport = AH_OK;  // not AH_OK: no HTTP answer (error says why)
    int status = 0;
    std::string body;
    std::string error;
    std::map<std::string, std::string> headers;  // names in lower case; empty from a client without the service
};

// `headers` are whole "Name: value" lines.
HostHttpReply host_http_request(const ah_runtime_host_t *host, const std::string &method, const std::string &url,
                                const std::vector<std::string> &headers, const std::string &body, double timeout_s);

}  // namespace actionhost::runtime_support
