/*
 * actionhost SDK — optional runtime capability "actionhost.runtime_reclaim/1": a backend that keeps
 * sandboxes on this machine (processes, directories, cgroups, records in core.state_dir) answers for
 * them without connecting to them, so that a client can stop one that no longer answers (its processes
 * stopped, frozen or hung), tell which kept-alive sessions still exist, and remove what ended ones left.
 *
 * Obtained with runtime->get_extension(runtime, AH_EXT_RUNTIME_RECLAIM); NULL when the backend has no
 * such state (then the client stops a kept-alive session by connect + close). May be called instead of
 * connect, on a runtime created for the session id in question (host->info->session_id); `reclaim`
 * concerns every session of the backend. A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_RECLAIM_H
#define ACTIONHOST_EXT_RUNTIME_RECLAIM_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_RECLAIM "actionhost.runtime_reclaim/1"

/* Flags of reclaim. */
#define AH_RECLAIM_THOROUGH 1u /* also check every record of core.state_dir (slower with many sessions) */

/* [same-thread] Told the session id of each kept-alive session reclaim found ended. `session_id` is borrowed for the
 * call. Called on the thread that called reclaim, before reclaim returns. */
typedef void (*ah_session_ended_fn)(void *context, const char *session_id);

typedef struct ah_ext_runtime_reclaim {
    uint32_t struct_size;
    /* [client-thread] Whether this session's kept-alive sandbox still runs: 1 yes, 0 no (it ended, or never was). Never
     * connects; does not block on the sandbox (it reads local state). Thread: the client thread driving
     * this runtime. Must not throw. */
    int32_t (*exists)(ah_runtime_t *runtime);
    /* [client-thread] Ends this session's kept-alive sandbox without connecting to it, whatever it is doing, and removes
     * everything of it. AH_OK when nothing of it remains (also when there was none); else an error status
     * with the reason through host->set_error. Thread: the client thread driving this runtime. Blocks
     * until the sandbox has ended (milliseconds; a few seconds at most for one that must be killed). */
    ah_status_t (*discard)(ah_runtime_t *runtime);
    /* [client-thread] Removes what this backend's ended sandboxes left on this machine (AH_RECLAIM_* flags); calls
     * `ended(context, session_id)` for each kept-alive session of core.state_dir found ended, whose
     * record the client may then drop (`ended` may be NULL; `context` is the caller's, passed through).
     * Cheap without AH_RECLAIM_THOROUGH: made to run before every start. Thread: the client thread
     * driving this runtime; other runtimes' reclaims may run at the same time. Blocks while it removes
     * (and for a sandbox still ending, up to a few seconds). */
    ah_status_t (*reclaim)(ah_runtime_t *runtime, uint32_t flags, ah_session_ended_fn ended, void *context);
} ah_ext_runtime_reclaim_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_RECLAIM_H */
