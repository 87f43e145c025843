/*
 * actionhost SDK — action plugins.
 *
 * A plugin is a shared object that exports exactly one symbol, `actionhost_plugin_entry`, a function
 * returning a pointer to a constant `ah_plugin_entry_t`. Beside the .so ships its manifest
 * (manifest.json: name, kind, version, abi_version, library, provides.actions with each action's
 * argument schema, provides.http_routes, options, requires.*; docs/plugin-guide.md), which the host
 * reads without running any code of the module: it validates every action against the schema its
 * provider declares before `execute` sees it, and routes by those declarations.
 *
 * Lifecycle (each step at most once, in this order; function pointers are never NULL):
 *   entry->create(host) -> plugin->init -> plugin->execute* -> plugin->shutdown -> plugin->destroy
 *
 * Threads (tags: abi.h): create and init run on the thread loading the plugin [load-thread] — a loader
 * thread at the host's start, or the HTTP worker of the first action that needs a plugin loaded on
 * demand — not the host's main thread, so a plugin must not assume the thread that created it is the
 * one that destroys it (nor keep thread-local state from init for execute). shutdown and destroy run on the thread that stops the host [main-thread], or on the
 * load thread at once when init fails or the host refuses the plugin after init. `execute` runs on host
 * worker threads [call-thread]: calls for *different* sessions may run concurrently; calls for the same session never
 * overlap (the host serialises them, as OpenHands serialises all actions) — except a call whose arguments
 * match its declaration's "interrupt_when" (manifest), which the host passes while another call of the
 * session runs (at most one such call at a time), so the plugin can stop what that call waits for.
 *
 * The host's promise: `destroy` is never called while an `execute` (or an extension's `handle`) of the
 * plugin runs. If such a call has not returned a while after `shutdown` (ACTIONHOST_SHUTDOWN_GRACE_SECONDS,
 * 30 by default), the host logs it and leaves the plugin alive and its library loaded — it never
 * destroys under a running call — and ends without calling `destroy`.
 */
#ifndef ACTIONHOST_PLUGIN_H
#define ACTIONHOST_PLUGIN_H

#include "abi.h"
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One action handed to a plugin. Owned by the host; every pointer is borrowed for the call (copy what
 * must outlive `execute`). */
typedef struct ah_action_call {
    uint32_t struct_size;
    ah_call_t *call;        /* handle for host->set_observation / emit_partial / set_error */
    ah_bytes_t action_json; /* the normalised OpenHands action envelope, UTF-8 JSON:
                               {"action":"run","args":{...},"timeout":120.0} (timeout only when set) */
    const char *action;     /* the envelope's "action", e.g. "run" */
    const char *session;    /* named session the action targets; "" is the default session */
    const char *cwd;        /* the session shell's current directory as the host last saw it in a
                               `run` observation (the working dir until the first one) */
    const char *request_id; /* the client's X-Request-ID header, or "" */
} ah_action_call_t;

typedef struct ah_plugin {
    uint32_t struct_size;
    void *plugin_data; /* the plugin's own state; the host never touches it */

    /* [load-thread] Starts whatever the plugin drives (a shell, a kernel, a browser) or defers that to first use.
     * Returns AH_OK, or an error with details through host->set_error(host, NULL, msg): the host then
     * refuses the plugin and, for a plugin named on its command line, fails to start. May block for its
     * start. */
    ah_status_t (*init)(struct ah_plugin *plugin);

    /* [call-thread] Executes one action: `call->action_json` already passed the host's validation against the schema
     * this plugin's manifest declares (defaults filled). The plugin reports its result with
     * host->set_observation before returning AH_OK. Operational failures (a command that fails, a file
     * that is missing) are observations, not error statuses. A non-AH_OK status (details via
     * host->set_error) becomes an `error` observation. Must not throw. Blocks for as long as the action
     * runs. Concurrency: see the contract at the top of this file. */
    ah_status_t (*execute)(struct ah_plugin *plugin, const ah_action_call_t *call);

    /* [main-thread | load-thread] Asks the plugin to stop: running `execute` calls must return promptly,
     * child processes must be stopped. Called once, possibly while `execute` calls are still in flight; the
     * host waits for them to return before calling `destroy` (see the promise above). */
    void (*shutdown)(struct ah_plugin *plugin);

    /* [main-thread | load-thread] Frees the plugin. Called at most once, after `shutdown` and after every
     * `execute` and extension call has returned. `plugin` is invalid afterwards. */
    void (*destroy)(struct ah_plugin *plugin);

    /* [any-thread] Returns the plugin's optional capability `id` or NULL; `id` is borrowed. The table
     * returned is the plugin's and stays valid until `destroy`. */
    const void *(*get_extension)(const struct ah_plugin *plugin, const char *id);
} ah_plugin_t;

typedef struct ah_plugin_entry {
    ah_version_t abi_version; /* AH_ABI_VERSION_INIT of the SDK the module was built with; first field */
    uint32_t struct_size;     /* sizeof(ah_plugin_entry_t) at build time */
    const char *name;         /* must equal the manifest's "name" */
    const char *version;      /* the plugin's own version; must equal the manifest's "version" */

    /* [load-thread] Creates one plugin instance bound to `host` (borrowed until destroy). Returns NULL on
     * failure, after host->set_error(host, NULL, reason). The instance is the plugin's until destroy. */
    ah_plugin_t *(*create)(const ah_host_t *host);
} ah_plugin_entry_t;

/* The one symbol a plugin module exports. [load-thread] Returns a pointer to a constant the module owns,
 * valid while the library is loaded. */
#define AH_PLUGIN_ENTRY_SYMBOL "actionhost_plugin_entry"
typedef const ah_plugin_entry_t *(*ah_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_PLUGIN_H */
