/*
 * actionhost SDK — optional plugin capability "actionhost.http_stream_routes/1": a plugin answers HTTP
 * requests on exact paths of the host's server, sees the request headers, sets response headers, and may
 * answer with a long-lived streamed body (Server-Sent Events, e.g. the mcp plugin's /mcp/sse).
 *
 * A sibling of "actionhost.http_routes/1" (ext/http_routes.h), which stays as published. A plugin offers
 * either; when it offers both, the host uses this one. Obtained with
 * plugin->get_extension(plugin, AH_EXT_HTTP_STREAM_ROUTES). The host applies its own authentication
 * (SESSION_API_KEY) before calling `handle`. The paths a plugin answers must also be listed in its
 * manifest under "provides.http_routes".
 */
#ifndef ACTIONHOST_EXT_HTTP_STREAM_ROUTES_H
#define ACTIONHOST_EXT_HTTP_STREAM_ROUTES_H

#include "../plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_HTTP_STREAM_ROUTES "actionhost.http_stream_routes/1"

/* One request header. Names keep the client's spelling; compare them case-insensitively. */
typedef struct ah_http_header {
    const char *name;
    const char *value;
} ah_http_header_t;

/* Host-owned; every pointer is borrowed for the duration of `handle`. */
typedef struct ah_http_stream_request {
    uint32_t struct_size;
    const char *method;      /* "GET", "POST", "DELETE", ... */
    const char *path;        /* the exact path matched, e.g. "/mcp/sse" */
    const char *query;       /* the raw query string without '?', or "" */
    ah_bytes_t body;         /* the whole request body (the host's body limit applies) */
    const ah_http_header_t *headers;
    size_t header_count;
    const char *remote_address; /* the client's IP address ("127.0.0.1", "::1"), or "" */
} ah_http_stream_request_t;

/* Host-owned reply handle; valid during `handle` and only on the thread running it. Exactly one of
 * `send` or `begin_stream` answers the request; without either the host answers 500. */
typedef struct ah_http_stream_reply {
    uint32_t struct_size;
    void *reply_data; /* the host's */
    /* [same-thread] Adds a response header. Before `send`/`begin_stream` only (AH_ERR_STATE after). Copied. */
    ah_status_t (*set_header)(struct ah_http_stream_reply *reply, const char *name, const char *value);
    /* [same-thread] Sends a complete response; `body` is copied. AH_ERR_STATE when the response was already started. */
    ah_status_t (*send)(struct ah_http_stream_reply *reply, int32_t status, const char *content_type, ah_bytes_t body);
    /* [same-thread] Starts a streamed (chunked) response; the headers go out at once. The body is what `write` passes
     * afterwards; the response ends when `handle` returns. */
    ah_status_t (*begin_stream)(struct ah_http_stream_reply *reply, int32_t status, const char *content_type);
    /* [same-thread] Writes one piece of a streamed body and flushes it to the client. Returns AH_ERR_IO once the client
     * has gone (then return from `handle`), AH_ERR_STATE before `begin_stream`. */
    ah_status_t (*write)(struct ah_http_stream_reply *reply, ah_bytes_t chunk);
} ah_http_stream_reply_t;

typedef struct ah_ext_http_stream_routes {
    uint32_t struct_size;
    /* NULL-terminated list of exact paths this plugin answers. Owned by the plugin, valid until destroy. */
    const char *const *paths;
    /* [call-thread] Handles one request. Thread: a host worker thread, one per connection; may run concurrently with
     * itself and with execute. A streamed response may keep `handle` running for as long as the client
     * listens: the plugin's `shutdown` must make such calls return promptly (the host waits for every
     * running `handle` before `destroy`). Must not throw. */
    ah_status_t (*handle)(struct ah_plugin *plugin, const ah_http_stream_request_t *request,
                          ah_http_stream_reply_t *reply);
} ah_ext_http_stream_routes_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_HTTP_STREAM_ROUTES_H */
