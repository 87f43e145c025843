/*
 * actionhost SDK — optional runtime capability "actionhost.runtime_ports/1": a backend that can make a
 * TCP port of its sandbox reachable from the machine the client runs on — a published port (`ahctl
 * port`, `--publish`, OpenHands' APP_PORT_1/APP_PORT_2/VSCODE_PORT) — while the sandbox runs, without
 * opening the sandbox's network to the machine.
 *
 * Publications live as long as the sandbox (a kept-alive one keeps them when its client exits) and end
 * with it. Any client process of the same user may add, remove and list them.
 *
 * Obtained with runtime->get_extension(runtime, AH_EXT_RUNTIME_PORTS) on a connected runtime; NULL when
 * the backend cannot publish ports. A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_PORTS_H
#define ACTIONHOST_EXT_RUNTIME_PORTS_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_PORTS "actionhost.runtime_ports/1"

typedef struct ah_ext_runtime_ports {
    uint32_t struct_size;
    /* [client-thread] Publishes the sandbox's TCP `port` (1..65535) on the machine at `address` (an IP address; NULL or
     * "" → 127.0.0.1) and `machine_port` (0: a free one). *out_address = where the machine reaches it,
     * "127.0.0.1:41234" or "[::1]:8080" (free it with free_string). Connections are carried to the port on
     * the sandbox's own loopback (127.0.0.1, else ::1); one to a port nothing listens on is closed.
     * Errors: a status and host->set_error (the port already published, the machine's port taken,
     * not an IP address). Thread: the client thread driving this runtime. Blocking: a round trip to
     * the sandbox's supervisor (well under a millisecond here). */
    ah_status_t (*publish)(ah_runtime_t *runtime, uint16_t port, uint16_t machine_port, const char *address,
                           char **out_address);
    /* [client-thread] Stops publishing `port` and closes the connections it carried. Errors: not published. Thread and
     * blocking as publish. */
    ah_status_t (*unpublish)(ah_runtime_t *runtime, uint16_t port);
    /* [client-thread] *out_json = [{"port": N, "address": "127.0.0.1:M"}, ...] in port order (free it with free_string).
     * Thread and blocking as publish. */
    ah_status_t (*list)(ah_runtime_t *runtime, char **out_json);
    /* [any-thread] Frees a string this extension returned. Thread: any. Blocking: no. */
    void (*free_string)(ah_runtime_t *runtime, char *text);
} ah_ext_runtime_ports_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_PORTS_H */
