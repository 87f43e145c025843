/* A policy module in plain C11 (the extension "actionhost.policy/1", ext/policy.h): it sees every action
 * before it runs and
 *   - denies a `run` that pipes a download into a shell (`curl ... | sh`, `wget -O- ... | bash`),
 *   - asks for the client's confirmation before `git push` (risk HIGH),
 *   - allows anything else, `run` with risk LOW.
 * Enabled with --set security.policy_modules=curl_guard (or [security] policy_modules = ["curl_guard"]).
 * The host runs it in its policy worker process: a crash or a hang here refuses the action, never the host. */
#define _POSIX_C_SOURCE 200809L
#include <actionhost/ext/json.h>
#include <actionhost/ext/policy.h>
#include <actionhost/plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
    ah_plugin_t plugin; /* first member: the host's ah_plugin_t* is this struct's address */
    const ah_host_t *host;
    const ah_ext_json_t *json; /* the host's JSON service (ext/json.h), found once in init */
} guard_t;

/* Whether `text` (not NUL-terminated) holds `needle`. */
static int contains(ah_bytes_t text, const char *needle) {
    const size_t n = strlen(needle);
    for (size_t i = 0; n <= text.len && i <= text.len - n; ++i)
        if (memcmp(text.ptr + i, needle, n) == 0) return 1;
    return 0;
}

static ah_status_t guard_check(ah_plugin_t *plugin, const ah_policy_query_t *query, ah_policy_verdict_t *verdict) {
    guard_t *self = (guard_t *)plugin;
    if (strcmp(query->action, "run") != 0) return AH_OK; /* no call to set: allow, risk unknown */
    /* The command itself, unescaped, read from the action by the host's parser: a search of the raw JSON
     * text would see `\"|sh` where the shell sees `"|sh`. */
    ah_json_doc_t *action = self->json->parse(query->action_json);
    ah_bytes_t a = {"", 0};
    if (action == NULL) return AH_ERR_INTERNAL;
    self->json->get_string(action, "/args/command", &a); /* a view valid until doc_free */
    const int downloads = contains(a, "curl ") || contains(a, "wget ");
    const int to_shell = contains(a, "| sh") || contains(a, "|sh") || contains(a, "| bash") || contains(a, "|bash");
    if (downloads && to_shell)
        verdict->set(verdict, AH_POLICY_DENY, AH_RISK_HIGH, "download-to-shell",
                     "a downloaded script piped into a shell runs code nobody has read");
    else if (contains(a, "git push"))
        verdict->set(verdict, AH_POLICY_CONFIRM, AH_RISK_HIGH, "git-push", "pushing publishes the agent's commits");
    else
        verdict->set(verdict, AH_POLICY_ALLOW, AH_RISK_LOW, NULL, NULL);
    self->json->doc_free(action);
    return AH_OK;
}

static const ah_ext_policy_t policy = {sizeof(ah_ext_policy_t), guard_check};

static ah_status_t guard_init(ah_plugin_t *plugin) {
    guard_t *self = (guard_t *)plugin;
    self->json = (const ah_ext_json_t *)self->host->get_extension(self->host, AH_EXT_JSON);
    if (self->json == NULL || self->json->struct_size < sizeof(ah_ext_json_t)) {
        self->host->set_error(self->host, NULL, "the host offers no JSON service (" AH_EXT_JSON "): it is too old");
        return AH_ERR_UNSUPPORTED;
    }
    return AH_OK;
}

/* A policy-only plugin provides no action: the host never calls execute. */
static ah_status_t guard_execute(ah_plugin_t *plugin, const ah_action_call_t *call) {
    guard_t *self = (guard_t *)plugin;
    self->host->set_error(self->host, call->call, "curl_guard executes no action");
    return AH_ERR_UNSUPPORTED;
}

static void guard_shutdown(ah_plugin_t *plugin) { (void)plugin; }

static void guard_destroy(ah_plugin_t *plugin) { free(plugin); }

static const void *guard_get_extension(const ah_plugin_t *plugin, const char *id) {
    (void)plugin;
    return strcmp(id, AH_EXT_POLICY) == 0 ? &policy : NULL;
}

static ah_plugin_t *guard_create(const ah_host_t *host) {
    guard_t *self = calloc(1, sizeof *self);
    if (!self) {
        host->set_error(host, NULL, "out of memory");
        return NULL;
    }
    self->host = host;
    self->plugin.struct_size = sizeof self->plugin;
    self->plugin.plugin_data = self;
    self->plugin.init = guard_init;
    self->plugin.execute = guard_execute;
    self->plugin.shutdown = guard_shutdown;
    self->plugin.destroy = guard_destroy;
    self->plugin.get_extension = guard_get_extension;
    return &self->plugin;
}

static const ah_plugin_entry_t entry = {
    .abi_version = AH_ABI_VERSION_INIT,
    .struct_size = sizeof(ah_plugin_entry_t),
    .name = "curl_guard",
    .version = "1.0.0",
    .create = guard_create,
};

AH_EXPORT const ah_plugin_entry_t *actionhost_plugin_entry(void) { return &entry; }
