/*
 * actionhost SDK — runtime backends (client side).
 *
 * A runtime backend provisions a sandbox (a child process, Linux namespaces, a container, a cloud
 * sandbox), starts the `actionhost` server in it and tells the client where to reach it. Everything
 * after that — actions, files, retries — is the client library's job over the wire, so a backend holds
 * only what is specific to its provider.
 *
 * A backend module exports exactly one symbol, `actionhost_runtime_entry`, returning a constant
 * `ah_runtime_entry_t`, and ships a manifest.json (kind "runtime", provides.runtimes) beside it.
 *
 * Lifecycle (function pointers are never NULL):
 *   entry->create(host, name) -> connect -> (endpoint | pause | resume)* -> close -> destroy
 * Threads (tags: abi.h): all calls on one runtime come from one client thread at a time [client-thread] (never concurrently);
 * different runtime instances may be driven from different threads at once, so a backend keeps no
 * unguarded state shared between its instances. The client library's services (ah_runtime_host_t)
 * may be called from any thread of the backend, for any instance, concurrently.
 */
#ifndef ACTIONHOST_RUNTIME_H
#define ACTIONHOST_RUNTIME_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `RuntimeStatus` values of OpenHands, as their wire strings ("STATUS$READY", ...). */
#define AH_STATUS_STOPPED "STATUS$STOPPED"
#define AH_STATUS_BUILDING_RUNTIME "STATUS$BUILDING_RUNTIME"
#define AH_STATUS_STARTING_RUNTIME "STATUS$STARTING_RUNTIME"
#define AH_STATUS_RUNTIME_STARTED "STATUS$RUNTIME_STARTED"
#define AH_STATUS_SETTING_UP_WORKSPACE "STATUS$SETTING_UP_WORKSPACE"
#define AH_STATUS_READY "STATUS$READY"
#define AH_STATUS_ERROR "STATUS$ERROR"
#define AH_STATUS_ERROR_RUNTIME_DISCONNECTED "STATUS$ERROR_RUNTIME_DISCONNECTED"

/* An HTTP request a backend asks the client library to make (provider APIs: Docker Engine over a unix
 * socket, Remote Runtime API, Kubernetes, ...). Borrowed for the call. */
typedef struct ah_http_call {
    uint32_t struct_size;
    const char *method;       /* "GET", "POST", ... */
    const char *url;          /* http://, https:// or unix:///path/to.sock:/request/path */
    const char *const *headers; /* NULL-terminated list of "Name: value" lines, or NULL */
    ah_bytes_t body;
    double timeout_s;         /* <= 0: the library default */
} ah_http_call_t;

/* The answer to an ah_http_call. `body` views bytes the client library owns (an exception to "borrowed
 * for the call"): they stay valid until host->http_result_free, which the backend must call once. */
typedef struct ah_http_result {
    uint32_t struct_size;
    int32_t status;  /* HTTP status, or 0 when no response arrived (then see `error`) */
    ah_bytes_t body;
    const char *error; /* transport error text, or ""; a failed TLS handshake (a certificate not trusted,
                        * expired or for another host: retrying cannot help) starts "TLS handshake failed: " */
    void *result_data; /* the library's */
} ah_http_result_t;

/* Facts a backend needs to start the host. Owned by the client library, valid until destroy. */
typedef struct ah_runtime_info {
    uint32_t struct_size;
    const char *session_id;    /* OpenHands sid; names containers, pods, ... */
    const char *install_dir;   /* the client's actionhost install prefix (bin/actionhost, lib/actionhost) */
    const char *host_command_json; /* JSON array: the host's arguments after the binary and the port,
                                      e.g. ["--working-dir","/workspace","--plugins","jupyter",...] */
    const char *env_json;      /* JSON object: environment to give the host (initial env, API key) */
} ah_runtime_info_t;

/* Services the client side gives a backend. Valid from create until destroy returns. Every service:
 * Thread: any (see the top of this file). */
typedef struct ah_runtime_host {
    uint32_t struct_size;
    ah_version_t abi_version;
    void *host_data; /* the client library's own; a backend never touches it */
    const ah_runtime_info_t *info;

    /* [any-thread] Writes one log line. `msg` borrowed. Blocking: no. */
    void (*log)(const struct ah_runtime_host *host, ah_log_level_t level, const char *msg);
    /* [same-thread] Records why the failing call (of this runtime, on this thread) failed; shown to the user. Copied.
     * Blocking: no. Thread: the thread of the failing call. */
    void (*set_error)(const struct ah_runtime_host *host, const char *msg);
    /* [any-thread] Reports progress as an AH_STATUS_* string plus free text (may be ""). Copied. Blocking: no more
     * than the client's progress display (a line on a terminal). */
    void (*set_status)(const struct ah_runtime_host *host, const char *runtime_status, const char *detail);

    /* [any-thread] Reads configuration: "core.<key>", "sandbox.<key>", "<section>.<key>" from config.toml after env
     * overrides, rendered as text (TOML arrays/tables as JSON). NULL when unset. The string is owned by
     * the client library and valid until destroy. Blocking: no. */
    const char *(*config_get)(const struct ah_runtime_host *host, const char *key);

    /* [any-thread] Makes one HTTP request and waits for its answer: Blocking: yes, up to call->timeout_s (the
     * library's default when <= 0) per attempt. Returns AH_OK when a response arrived (any status), else
     * AH_ERR_IO or AH_ERR_TIMEOUT with result->error set. `call` is borrowed; `result` is filled and
     * must be freed with http_result_free (also after an error). */
    ah_status_t (*http_request)(const struct ah_runtime_host *host, const ah_http_call_t *call,
                                ah_http_result_t *result);
    /* [any-thread] Frees what http_request put in `result`. Blocking: no. */
    void (*http_result_free)(const struct ah_runtime_host *host, ah_http_result_t *result);

    /* [any-thread] Polls GET <url>/alive until it answers 200 or `timeout_s` passes (AH_ERR_TIMEOUT). Blocking: yes,
     * up to timeout_s. Strings borrowed. */
    ah_status_t (*wait_alive)(const struct ah_runtime_host *host, const char *url, const char *session_api_key,
                              double timeout_s);

    /* [any-thread] Optional client services by id ("actionhost.<name>/<version>"); NULL when absent. The pointer is
     * valid until destroy. Blocking: no. */
    const void *(*get_extension)(const struct ah_runtime_host *host, const char *id);
} ah_runtime_host_t;

/* Where the client reaches the host. Strings owned by the backend, valid until the next call on it. */
typedef struct ah_runtime_endpoint {
    uint32_t struct_size;
    const char *url;             /* e.g. "http://127.0.0.1:30123" */
    const char *session_api_key; /* sent as X-Session-API-Key; "" for none */
    const char *runtime_id;      /* provider id of the sandbox (container id, runtime_id, pod name) */
} ah_runtime_endpoint_t;

typedef struct ah_runtime {
    uint32_t struct_size;
    void *runtime_data; /* the backend's */

    /* [client-thread] Provisions the sandbox (or attaches to an existing one), starts the host and waits until it is
     * alive, reporting progress with host->set_status. Blocking: yes, for the whole start (seconds to
     * minutes for a cloud provider). Errors: a status and host->set_error. */
    ah_status_t (*connect)(struct ah_runtime *runtime);
    /* [client-thread] Fills `out` with where the host is reached. Valid after a successful connect. Blocking: no. */
    ah_status_t (*endpoint)(struct ah_runtime *runtime, ah_runtime_endpoint_t *out);
    /* [client-thread] Suspends / restarts the sandbox, keeping its workspace. AH_ERR_UNSUPPORTED when impossible.
     * Blocking: yes, until the provider has done it. */
    ah_status_t (*pause)(struct ah_runtime *runtime);
    ah_status_t (*resume)(struct ah_runtime *runtime);
    /* [client-thread] Ends the session: stops and removes the sandbox, or keeps/pauses it when the configuration says
     * keep_runtime_alive. Blocking: yes, until done. */
    ah_status_t (*close)(struct ah_runtime *runtime);
    /* [client-thread] Frees the runtime; `runtime` is invalid afterwards. Blocking: no (close did the work). */
    void (*destroy)(struct ah_runtime *runtime);
    /* [client-thread] The backend's optional capability `id` or NULL; valid until destroy. Blocking: no. */
    const void *(*get_extension)(const struct ah_runtime *runtime, const char *id);
} ah_runtime_t;

typedef struct ah_runtime_entry {
    ah_version_t abi_version; /* first field */
    uint32_t struct_size;
    const char *name;         /* module name; must equal the manifest's "name" */
    const char *version;      /* must equal the manifest's "version" */
    /* [client-thread] Creates a runtime of kind `runtime_name` (one of the manifest's provides.runtimes). NULL on
     * failure after host->set_error. Thread: the client thread. */
    ah_runtime_t *(*create)(const ah_runtime_host_t *host, const char *runtime_name);
} ah_runtime_entry_t;

#define AH_RUNTIME_ENTRY_SYMBOL "actionhost_runtime_entry"
/* [client-thread] Returns a pointer to a constant the module owns, valid while the library is loaded. */
typedef const ah_runtime_entry_t *(*ah_runtime_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_RUNTIME_H */
