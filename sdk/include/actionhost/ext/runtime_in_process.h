/*
 * actionhost SDK — optional runtime-backend capability "actionhost.runtime_in_process/1": a backend
 * that serves the host's HTTP API inside the client's own process, with no socket (OpenHands'
 * CLIRuntime: useful where nothing can listen on a port).
 *
 * A new extension id, not a change to any published struct: a backend that has it returns the table
 * from runtime->get_extension(runtime, AH_EXT_RUNTIME_IN_PROCESS), and its endpoint's url is
 * "inproc://<name>". The client library then hands every request it would have sent to that url to
 * `handle` instead, so timeouts, retries and the meaning of the answers stay those of the wire.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_IN_PROCESS_H
#define ACTIONHOST_EXT_RUNTIME_IN_PROCESS_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_IN_PROCESS "actionhost.runtime_in_process/1"
#define AH_IN_PROCESS_URL_SCHEME "inproc://"

typedef struct ah_ext_runtime_in_process {
    uint32_t struct_size;
    void *ext_data; /* the backend's */
    /* [client-thread] Serves one request of the host's API (docs/api.md). `call->url` is the request path with its query
     * ("/execute_action", "/download_files?path=/w"); method, headers and body as on the wire. Returns
     * AH_OK when an answer was produced (any HTTP status) and fills `result` (status, body; `error` "").
     * The caller frees the result with result_free. Thread: the client thread of the runtime; calls on
     * one runtime are never concurrent. Valid after a successful connect, until close. Never throws. */
    ah_status_t (*handle)(const struct ah_ext_runtime_in_process *ext, const ah_http_call_t *call,
                          ah_http_result_t *result);
    /* [client-thread] Frees what handle put in `result` (the body handle returned stays valid until then). */
    void (*result_free)(const struct ah_ext_runtime_in_process *ext, ah_http_result_t *result);
} ah_ext_runtime_in_process_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_IN_PROCESS_H */
