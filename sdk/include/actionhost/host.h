/*
 * actionhost SDK — services the host (the `actionhost` server) gives to an action plugin.
 *
 * One `ah_host_t` is passed to a plugin's `create` and stays valid until that plugin's `destroy`
 * returns. Every service takes the host pointer first, so neither side needs globals.
 */
#ifndef ACTIONHOST_HOST_H
#define ACTIONHOST_HOST_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One action being executed. Opaque; owned by the host; valid from the start of `execute` until it
 * returns. Passing it to a service after that is a contract violation the host logs and ignores. */
typedef struct ah_call ah_call_t;

/* Facts about the sandbox the host serves. Owned by the host, immutable, valid for the host's life.
 * Settings of one plugin (a browser's evaluation environment, say) are not facts of the host: a plugin
 * declares them in its manifest ("options") and reads them with config_get. */
typedef struct ah_host_info {
    uint32_t struct_size;
    const char *working_dir;  /* --working-dir: initial cwd of shells and kernels; editor root */
    const char *username;     /* --username: the user actions run as */
    int32_t user_id;          /* --user-id: uid for user creation and new-file ownership */
    int32_t host_is_root;     /* 1 when the host process runs as uid 0 (can switch user) */
    const char *install_dir;  /* the install prefix the host runs from (holds bin/, lib/actionhost/) */
    const char *host_version; /* the host's own version string, e.g. "0.1.0" */
} ah_host_info_t;

/* Every service below: [any-thread] unless its tag says otherwise (tags: abi.h). Blocking: none of them waits for another
 * thread or for I/O beyond writing a log line; each returns promptly. */
typedef struct ah_host {
    uint32_t struct_size;
    ah_version_t abi_version; /* the ABI the host implements */
    void *host_data;          /* the host's own; a plugin never touches it */
    const ah_host_info_t *info;

    /* [any-thread] Writes one line to the host log. `msg` is borrowed. */
    void (*log)(const struct ah_host *host, ah_log_level_t level, const char *msg);

    /* [same-thread] Records why the call into the plugin that is failing failed; copied. With `call` (during
     * `execute`): the text of that call's error observation. With NULL, outside `execute` (in create,
     * init, an HTTP route's handle): the host keeps one such text per thread and reads
     * it when that call returns a failure — in the refusal it logs, or the error answer of the route —
     * so it must be set on the thread of the failing call; with `call`, any thread while it runs. */
    void (*set_error)(const struct ah_host *host, ah_call_t *call, const char *msg);

    /* [any-thread, while `execute` of this call runs] Sets the observation of `call`: one JSON object in the OpenHands observation shape
     * ({"observation":..., "content":..., "extras":{...}}). Copied; a second call replaces the first.
     * Invalid JSON is not an error here: the host turns it into an `error` observation and logs the
     * plugin as misbehaving. After `execute` returned: AH_ERR_STATE. `json` is borrowed. */
    ah_status_t (*set_observation)(const struct ah_host *host, ah_call_t *call, ah_bytes_t json);

    /* [any-thread, while `execute` of this call runs] Emits a chunk of partial output of a still-running call (raw text as produced, e.g. terminal
     * output) to anyone following the session live. Copied. Does not change the final observation.
     * Chunks are delivered in call order. */
    ah_status_t (*emit_partial)(const struct ah_host *host, ah_call_t *call, ah_bytes_t chunk);

    /* [any-thread] Looks up a configuration value: first a command-line option a manifest declares for the key, then
     * `--set KEY=VALUE` on the host command line, then the host's environment; keys the host computes
     * start with "actionhost." (docs/configuration.md lists every key). Returns NULL when unset. The
     * string is owned by the host and valid until the plugin is destroyed. */
    const char *(*config_get)(const struct ah_host *host, const char *key);

    /* [any-thread] Returns the host's optional service `id` ("actionhost.<name>/<version>", see abi.h) or NULL when
     * the host does not offer it. The pointer is valid for the host's life. */
    const void *(*get_extension)(const struct ah_host *host, const char *id);
} ah_host_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_HOST_H */
