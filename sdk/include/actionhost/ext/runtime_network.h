/*
 * actionhost SDK — optional runtime capability "actionhost.runtime_network/1": a backend whose sandbox
 * has an egress policy of its own (the `sandbox` runtime with network = "internet") lets the client read
 * it with its refusal log and change it while the sandbox runs (`ahctl net`).
 *
 * Obtained with runtime->get_extension(runtime, AH_EXT_RUNTIME_NETWORK) on a connected runtime; NULL when
 * the backend has no such policy. A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_NETWORK_H
#define ACTIONHOST_EXT_RUNTIME_NETWORK_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_NETWORK "actionhost.runtime_network/1"

typedef struct ah_ext_runtime_network {
    uint32_t struct_size;
    /* [client-thread] *out_json = {"mode": "none"|"internet"|"host", "allow": [RULE], "deny": [RULE], "refused": N,
     * "log": [{"address", "protocol", "port", "packets"}]} — the lists, counter and log only for
     * "internet" (free it with free_string). Thread: the client thread driving this runtime. Blocking:
     * a round trip to the sandbox's supervisor, which reads the filter (~10 ms). */
    ah_status_t (*get_policy)(ah_runtime_t *runtime, char **out_json);
    /* [client-thread] Changes the policy in force: change_json = {"allow": [RULE], "deny": [RULE], "remove": [RULE]} (an
     * entry allowed leaves the deny list and the reverse; "remove" takes it out of either). All or
     * nothing: the filter is replaced in one transaction, its counter and log kept. *out_json = the
     * policy now, as get_policy without the log. Errors: AH_ERR_INVALID_ARGUMENT for an entry that is
     * neither a CIDR (or address) nor a domain name ("pypi.org", "*.github.com"), or a sandbox whose network is not "internet" (host->set_error says which). Thread and
     * blocking as get_policy. */
    ah_status_t (*change_policy)(ah_runtime_t *runtime, const char *change_json, char **out_json);
    /* [any-thread] Frees a string this extension returned. Thread: any. Blocking: no. */
    void (*free_string)(ah_runtime_t *runtime, char *text);
} ah_ext_runtime_network_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_NETWORK_H */
