/* A plugin in plain C11, against the SDK's C headers alone: provides the action "uname" and answers
 * with the kernel's name (`uname -s`), or with `uname -a`'s fields when the action says "all": true.
 * Request:  {"action": {"action": "uname", "args": {"all": true}}}
 * Answer:   {"observation": "uname", "content": "Linux box 6.1.0-18-amd64 #1 SMP ... x86_64", "extras": {...}}
 * The manifest declares `all` (a boolean, false by default): the host checks and fills it before
 * execute runs. The action is read and the answer written with the host's JSON service (ext/json.h):
 * nothing here escapes a string by hand. */
#define _POSIX_C_SOURCE 200809L
#include <actionhost/ext/json.h>
#include <actionhost/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

typedef struct {
    ah_plugin_t plugin; /* first member: the host's ah_plugin_t* is this struct's address */
    const ah_host_t *host;
    const ah_ext_json_t *json; /* the host's JSON service, found once in init */
} uname_plugin_t;

static ah_status_t uname_init(ah_plugin_t *plugin) {
    uname_plugin_t *self = (uname_plugin_t *)plugin;
    self->json = (const ah_ext_json_t *)self->host->get_extension(self->host, AH_EXT_JSON);
    if (self->json == NULL || self->json->struct_size < sizeof(ah_ext_json_t)) {
        self->host->set_error(self->host, NULL, "the host offers no JSON service (" AH_EXT_JSON "): it is too old");
        return AH_ERR_UNSUPPORTED;
    }
    self->host->log(self->host, AH_LOG_INFO, "uname plugin ready");
    return AH_OK;
}

static ah_status_t uname_execute(ah_plugin_t *plugin, const ah_action_call_t *call) {
    uname_plugin_t *self = (uname_plugin_t *)plugin;
    const ah_ext_json_t *json = self->json;
    struct utsname u;
    if (uname(&u) != 0) {
        self->host->set_error(self->host, call->call, "uname(2) failed");
        return AH_ERR_IO;
    }
    ah_json_doc_t *action = json->parse(call->action_json);
    int32_t all = 0;
    if (action != NULL) json->get_bool(action, "/args/all", &all); /* the host filled it: false by default */
    json->doc_free(action);

    char content[1400];
    if (all)
        snprintf(content, sizeof content, "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version, u.machine);
    else
        snprintf(content, sizeof content, "%s", u.sysname);

    ah_json_writer_t *w = json->writer_new();
    if (w == NULL) return AH_ERR_INTERNAL;
    json->begin_object(w, NULL);
    json->put_string(w, "observation", "uname");
    json->put_string(w, "content", content);
    json->begin_object(w, "extras");
    json->put_string(w, "session", call->session);
    json->end(w);
    json->end(w);
    ah_bytes_t reply;
    ah_status_t status = json->finish(w, &reply); /* a misuse on the way would be reported here */
    if (status == AH_OK)
        status = self->host->set_observation(self->host, call->call, reply);
    else
        self->host->set_error(self->host, call->call, json->writer_error(w));
    json->writer_free(w);
    return status;
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
