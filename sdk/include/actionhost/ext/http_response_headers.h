/*
 * actionhost SDK — optional client service "actionhost.http_response_headers/1": the header lines of an
 * answer to host->http_request. Providers put retry advice in headers (Retry-After, Stainless clients'
 * retry-after-ms and x-should-retry), and a backend that retries must see it.
 *
 * Obtained with host->get_extension(host, AH_EXT_HTTP_RESPONSE_HEADERS); NULL from a client library
 * older than this service (then a backend retries on its own schedule). A new id, no published struct
 * changed.
 */
#ifndef ACTIONHOST_EXT_HTTP_RESPONSE_HEADERS_H
#define ACTIONHOST_EXT_HTTP_RESPONSE_HEADERS_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_HTTP_RESPONSE_HEADERS "actionhost.http_response_headers/1"

typedef struct ah_ext_http_response_headers {
    uint32_t struct_size;
    /* [any-thread] The headers of `result` (filled by host->http_request) as a NULL-terminated list of "name: value"
     * lines, names in lower case, one line per name (repeated headers joined with ", "). An empty list
     * when no response arrived. Valid until host->http_result_free(result). Thread: any. */
    const char *const *(*headers)(const struct ah_runtime_host *host, const ah_http_result_t *result);
} ah_ext_http_response_headers_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_HTTP_RESPONSE_HEADERS_H */
