/* A plugin in plain C11, against the SDK's C headers alone: provides the action "uname" and answers
 * with the kernel's name (`uname -s`), or with `uname -a`'s fields when the action says "all": true.
 * Request:  {"action": {"action": "uname", "args": {"all": true}}}
 * Answer:   {"observation": "uname", "content": "Linux box 6.1.0-18-amd64 #1 SMP ... x86_64", "extras": {...}}
 * The manifest declares `all` (a boolean, false by default): the host checks and fills it before
 * execute runs, so the action JSON always holds "all":true or "all":false. */
#define _POSIX_C_SOURCE 200809L
#include <actionhost/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

typedef struct {
    ah_plugin_t plugin; /* first member: the host's ah_plugin_t* is this struct's address */
    const ah_host_t *host;
} uname_plugin_t;

static ah_status_t uname_init(ah_plugin_t *plugin) {
    uname_plugin_t *self = (uname_plugin_t *)plugin;
    self->host->log(self->host, AH_LOG_INFO, "uname plugin ready");
    return AH_OK;
}

/* Kernel strings hold no quotes or backslashes; anything else a plugin puts in its JSON must be escaped. */
static ah_status_t uname_execute(ah_plugin_t *plugin, const ah_action_call_t *call) {
    uname_plugin_t *self = (uname_plugin_t *)plugin;
    struct utsname u;
    if (uname(&u) != 0) {
        self->host->set_error(self->host, call->call, "uname(2) failed");
        return AH_ERR_IO;
    }
    /* The action JSON is a view, not a C string: search a bounded copy of it. */
    char *action = malloc(call->action_json.len + 1);
    if (!action) return AH_ERR_INTERNAL;
    memcpy(action, call->action_json.ptr, call->action_json.len);
    action[call->action_json.len] = '\0';
    const int all = strstr(action, "\"all\":true") != NULL;
    free(action);

    char content[1400];
    if (all)
        snprintf(content, sizeof content, "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version, u.machine);
    else
        snprintf(content, sizeof content, "%s", u.sysname);
    char reply[1600];
    const int n = snprintf(reply, sizeof reply,
                           "{\"observation\":\"uname\",\"content\":\"%s\",\"extras\":{\"session\":\"%s\"}}", content,
                           call->session);
    if (n < 0 || (size_t)n >= sizeof reply) {
        self->host->set_error(self->host, call->call, "uname answer too long");
        return AH_ERR_INTERNAL;
    }
    const ah_bytes_t json = {reply, (size_t)n};
    return self->host->set_observation(self->host, call->call, json);
}

static void uname_shutdown(ah_plugin_t *plugin) { (void)plugin; /* nothing runs in the background */ }

static void uname_destroy(ah_plugin_t *plugin) { free(plugin); }

static const void *uname_get_extension(const ah_plugin_t *plugin, const char *id) {
    (void)plugin;
    (void)id;
    return NULL; /* no optional capabilities */
}

static ah_plugin_t *uname_create(const ah_host_t *host) {
    uname_plugin_t *self = calloc(1, sizeof *self);
    if (!self) {
        host->set_error(host, NULL, "out of memory");
        return NULL;
    }
    self->host = host;
    self->plugin.struct_size = sizeof self->plugin;
    self->plugin.plugin_data = self;
    self->plugin.init = uname_init;
    self->plugin.execute = uname_execute;
    self->plugin.shutdown = uname_shutdown;
    self->plugin.destroy = uname_destroy;
    self->plugin.get_extension = uname_get_extension;
    return &self->plugin;
}

static const ah_plugin_entry_t entry = {
    .abi_version = AH_ABI_VERSION_INIT,
    .struct_size = sizeof(ah_plugin_entry_t),
    .name = "uname",
    .version = "1.0.0",
    .create = uname_create,
};

AH_EXPORT const ah_plugin_entry_t *actionhost_plugin_entry(void) { return &entry; }
