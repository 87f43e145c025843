/* Crashes (SIGSEGV) when the action mentions crash-policy, never answers when it mentions hang-policy,
 * allows anything else: the host must refuse those actions, not run them, and keep serving. */
#define _POSIX_C_SOURCE 200809L
#include <actionhost/ext/policy.h>
#include <actionhost/plugin.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int contains(ah_bytes_t text, const char *needle) {
    const size_t n = strlen(needle);
    for (size_t i = 0; n <= text.len && i <= text.len - n; ++i)
        if (memcmp(text.ptr + i, needle, n) == 0) return 1;
    return 0;
}

static ah_status_t bad_check(ah_plugin_t *plugin, const ah_policy_query_t *query, ah_policy_verdict_t *verdict) {
    (void)plugin;
    if (contains(query->action_json, "crash-policy")) raise(SIGSEGV);
    if (contains(query->action_json, "hang-policy"))
        for (;;) pause();
    verdict->set(verdict, AH_POLICY_ALLOW, AH_RISK_LOW, NULL, NULL);
    return AH_OK;
}

static const ah_ext_policy_t policy = {sizeof(ah_ext_policy_t), bad_check};
static ah_status_t bad_init(ah_plugin_t *p) { (void)p; return AH_OK; }
static ah_status_t bad_execute(ah_plugin_t *p, const ah_action_call_t *c) { (void)p; (void)c; return AH_ERR_UNSUPPORTED; }
static void bad_shutdown(ah_plugin_t *p) { (void)p; }
static void bad_destroy(ah_plugin_t *p) { free(p); }
static const void *bad_get_extension(const ah_plugin_t *p, const char *id) {
    (void)p;
    return strcmp(id, AH_EXT_POLICY) == 0 ? &policy : NULL;
}
static ah_plugin_t *bad_create(const ah_host_t *host) {
    ah_plugin_t *p = calloc(1, sizeof *p);
    if (!p) {
        host->set_error(host, NULL, "out of memory");
        return NULL;
    }
    p->struct_size = sizeof *p;
    p->init = bad_init;
    p->execute = bad_execute;
    p->shutdown = bad_shutdown;
    p->destroy = bad_destroy;
    p->get_extension = bad_get_extension;
    return p;
}
static const ah_plugin_entry_t entry = {AH_ABI_VERSION_INIT, sizeof(ah_plugin_entry_t), "misbehaving", "1.0.0", bad_create};
AH_EXPORT const ah_plugin_entry_t *actionhost_plugin_entry(void) { return &entry; }
