/*
 * actionhost SDK — optional runtime capability "actionhost.runtime_recovery/1": the backend decides what
 * an HTTP error from its sandbox's URL means, as OpenHands' RemoteRuntime does: 404, 502 and
 * 504 mean the sandbox is gone (disconnected); 503 means it is paused, and a backend that keeps runtimes
 * alive resumes it so the request can be retried once.
 *
 * Obtained with runtime->get_extension(runtime, AH_EXT_RUNTIME_RECOVERY); NULL when the backend does not
 * care (then the client reports the HTTP error as it is). A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_RECOVERY_H
#define ACTIONHOST_EXT_RUNTIME_RECOVERY_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_RECOVERY "actionhost.runtime_recovery/1"

/* What the client does after on_sandbox_error. */
typedef enum ah_recovery {
    AH_RECOVERY_REPORT = 0,       /* not a disconnect: report the HTTP error as it is */
    AH_RECOVERY_RETRY = 1,        /* the backend made the sandbox usable again: retry the request once */
    AH_RECOVERY_DISCONNECTED = 2  /* the sandbox is gone: STATUS$ERROR_RUNTIME_DISCONNECTED */
} ah_recovery_t;

typedef struct ah_ext_runtime_recovery {
    uint32_t struct_size;
    /* [client-thread] The sandbox URL answered `http_status` to a request of the client. Returns an ah_recovery_t as
     * int32_t; on AH_RECOVERY_DISCONNECTED the reason is given with host->set_error. Thread: the client
     * thread driving this runtime. May block (a resume waits for the sandbox). Must not throw. */
    int32_t (*on_sandbox_error)(ah_runtime_t *runtime, int32_t http_status);
} ah_ext_runtime_recovery_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_RECOVERY_H */
