/*
 * actionhost SDK — optional runtime capability "actionhost.runtime_snapshot/1": a backend whose sandbox
 * stacks an image's layers under a writable layer of its own (the `sandbox` runtime) lets the client
 * commit that layer as a new image — a snapshot, from which more sandboxes start (fork).
 *
 * The client freezes the sandbox, reads the layer, and thaws it: a snapshot is a consistent view of
 * the sandbox's files at one moment, its processes untouched.
 *
 * Obtained with runtime->get_extension(runtime, AH_EXT_RUNTIME_SNAPSHOT); NULL when the backend cannot
 * take snapshots. A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_SNAPSHOT_H
#define ACTIONHOST_EXT_RUNTIME_SNAPSHOT_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_SNAPSHOT "actionhost.runtime_snapshot/1"

typedef struct ah_ext_runtime_snapshot {
    uint32_t struct_size;
    /* [client-thread] Stops every process of the connected sandbox (its cgroup freezer) and describes its writable layer:
     * *out_json = {"upper": the directory, "image": the manifest digest of the image below it,
     * "map_owners": bool, "uid_base": N, "gid_base": N} (owners as actionhost.images/1 takes them). The
     * sandbox stays frozen until thaw. Free the string with free_string. Errors: a status and
     * host->set_error (no image below the sandbox, no freezer for an unprivileged caller's sandbox).
     * Thread: the client thread driving this runtime. Blocking: until every process is stopped. */
    ah_status_t (*freeze_layer)(ah_runtime_t *runtime, char **out_json);
    /* [client-thread] Lets the sandbox run again. Idempotent. Blocking: until every process is thawed. */
    ah_status_t (*thaw)(ah_runtime_t *runtime);
    /* [any-thread] Frees a string freeze_layer returned. Blocking: no. */
    void (*free_string)(ah_runtime_t *runtime, char *text);
} ah_ext_runtime_snapshot_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_SNAPSHOT_H */
