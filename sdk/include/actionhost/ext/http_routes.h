/*
 * actionhost SDK — optional plugin capability "actionhost.http_routes/1": a plugin answers HTTP
 * requests on exact paths of the host's server (e.g. the vscode plugin's /vscode/connection_token).
 *
 * Obtained with plugin->get_extension(plugin, AH_EXT_HTTP_ROUTES). The host applies its own
 * authentication (SESSION_API_KEY) before calling `handle`.
 */
#ifndef ACTIONHOST_EXT_HTTP_ROUTES_H
#define ACTIONHOST_EXT_HTTP_ROUTES_H

#include "../plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_HTTP_ROUTES "actionhost.http_routes/1"

typedef struct ah_http_request {
    uint32_t struct_size;
    const char *method; /* "GET", "POST", ... */
    const char *path;   /* the exact path matched, e.g. "/vscode/connection_token" */
    const char *query;  /* the raw query string without '?', or "" */
    ah_bytes_t body;
} ah_http_request_t;

/* Host-owned reply handle; valid during `handle`. */
typedef struct ah_http_reply {
    uint32_t struct_size;
    void *reply_data; /* the host's */
    /* [same-thread] Sends the response; `body` is copied. Call at most once; without a call the host answers 500. */
    void (*send)(struct ah_http_reply *reply, int32_t status, const char *content_type, ah_bytes_t body);
} ah_http_reply_t;

typedef struct ah_ext_http_routes {
    uint32_t struct_size;
    /* NULL-terminated list of exact paths this plugin answers. Owned by the plugin, valid until destroy. */
    const char *const *paths;
    /* [call-thread] Handles one request. Thread: a host worker thread; may run concurrently with itself and with
     * execute. Must not throw. */
    ah_status_t (*handle)(struct ah_plugin *plugin, const ah_http_request_t *request, ah_http_reply_t *reply);
} ah_ext_http_routes_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_HTTP_ROUTES_H */
