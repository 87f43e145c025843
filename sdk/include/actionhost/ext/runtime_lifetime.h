/*
 * actionhost SDK — optional runtime capability "actionhost.runtime_lifetime/1": a backend that keeps a
 * sandbox's lifetime (`[sandbox] lifetime`: it ends by itself, nothing left behind) and idle timeout
 * (`idle_timeout`, `idle_action` "pause" or "stop") where no client is needed — so they hold for a
 * kept-alive sandbox whose client has exited — and out of the sandbox's reach.
 *
 * The state, as JSON text: {"lifetime_s": N, "time_left_s": S, "expires_at": UNIX_SECONDS,
 * "idle_timeout_s": N, "idle_action": "pause"|"stop", "idle_s": S, "paused": BOOL} — the lifetime's
 * fields null for a sandbox without one, the idle ones for one without an idle timeout; "paused": paused
 * by the idle timeout (it resumes by itself on the next request).
 *
 * Obtained with runtime->get_extension(runtime, AH_EXT_RUNTIME_LIFETIME); NULL when the backend keeps
 * no lifetime. Its functions also serve a runtime that is not connected, for its session's kept-alive
 * sandbox (`ahctl extend`, `ahctl ps`). A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_LIFETIME_H
#define ACTIONHOST_EXT_RUNTIME_LIFETIME_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_LIFETIME "actionhost.runtime_lifetime/1"

typedef struct ah_ext_runtime_lifetime {
    uint32_t struct_size;
    /* [client-thread] *out_json = the state (free it with free_string). Errors: a status and host->set_error (no running
     * sandbox for the session). Thread: the client thread driving this runtime. Blocking: a round trip
     * to the process that keeps the time (the sandbox's supervisor; the local or docker keeper). */
    ah_status_t (*get)(ah_runtime_t *runtime, char **out_json);
    /* [client-thread] Moves the end `seconds` later (1 .. ten years); *out_json = the state after. AH_ERR_INVALID_ARGUMENT
     * with host->set_error for seconds out of range or a sandbox without a lifetime. Thread and blocking
     * as get. */
    ah_status_t (*extend)(ah_runtime_t *runtime, int64_t seconds, char **out_json);
    /* [any-thread] Frees a string this extension returned. Thread: any. Blocking: no. */
    void (*free_string)(ah_runtime_t *runtime, char *text);
} ah_ext_runtime_lifetime_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_LIFETIME_H */
