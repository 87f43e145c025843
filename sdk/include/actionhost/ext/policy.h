/*
 * actionhost SDK — optional plugin capability "actionhost.policy/1": a policy module sees every action
 * before it reaches its provider (or the host's own file actions) and answers allow, deny with a reason,
 * or ask for the client's confirmation, with a risk as OpenHands' `security_risk` (LOW, MEDIUM, HIGH).
 *
 * Obtained with plugin->get_extension(plugin, AH_EXT_POLICY). A policy module is an ordinary plugin
 * module whose manifest says "provides": {"policy": true} (it may provide nothing else); the host loads
 * those named by the configuration key `security.policy_modules` — never any other — and refuses to start
 * when one fails to load or lacks this extension.
 *
 * Isolation: the host runs third-party policy modules in a helper process of its own (the policy worker),
 * not in the server: a module that crashes or does not answer within `security.policy_timeout_ms` costs the
 * action (it is refused, never run) and a restart of the worker, not the host. A module therefore keeps no
 * state it cannot rebuild: after a crash or a hang it is created and initialised again.
 */
#ifndef ACTIONHOST_EXT_POLICY_H
#define ACTIONHOST_EXT_POLICY_H

#include "../plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_POLICY "actionhost.policy/1"

/* A decision, carried as int32_t. */
typedef int32_t ah_policy_decision_t;
enum {
    AH_POLICY_ALLOW = 0,   /* the action may run (other modules may still deny it) */
    AH_POLICY_DENY = 1,    /* the action never runs; its answer is an error observation naming the rule */
    AH_POLICY_CONFIRM = 2  /* the action waits for the client's confirmation (docs/security.md, "Policy") */
};

/* A risk, carried as int32_t; the values are OpenHands' ActionSecurityRisk. */
typedef int32_t ah_policy_risk_t;
enum {
    AH_RISK_UNKNOWN = -1,
    AH_RISK_LOW = 0,
    AH_RISK_MEDIUM = 1,
    AH_RISK_HIGH = 2
};

/* The action asked about. Owned by the host; every pointer is borrowed for the call. */
typedef struct ah_policy_query {
    uint32_t struct_size;
    ah_bytes_t action_json; /* the normalised OpenHands action envelope, as a plugin's execute gets it:
                               {"action":"run","args":{...}} — already validated, defaults filled */
    const char *action;     /* the envelope's "action", e.g. "run", "read", "write" */
    const char *session;    /* the named session the action targets; "" is the default session */
    const char *cwd;        /* the session's current directory: relative paths of `args` resolve against it */
    const char *request_id; /* the client's X-Request-ID header, or "" */
} ah_policy_query_t;

/* Host-owned answer handle; valid during `check`. */
typedef struct ah_policy_verdict {
    uint32_t struct_size;
    void *verdict_data; /* the host's */
    /* [policy-thread] Gives the module's answer. `rule` (a short name of what matched, e.g. "no-curl-pipe-sh") and
     * `reason` (one sentence the client and the audit trail show) are copied; either may be NULL. Call at
     * most once; a second call replaces the first. Without a call the answer is ALLOW with risk UNKNOWN. A
     * decision or risk outside the enums is read as DENY (and logged as the module misbehaving). */
    void (*set)(struct ah_policy_verdict *verdict, ah_policy_decision_t decision, ah_policy_risk_t risk,
                const char *rule, const char *reason);
} ah_policy_verdict_t;

typedef struct ah_ext_policy {
    uint32_t struct_size;
    /* [policy-thread] Judges one action. Returns AH_OK after verdict->set (or without it: allow); any other status
     * (details through host->set_error(host, NULL, msg)) denies the action, as does not returning within
     * the host's deadline. Must not throw; should answer in microseconds to milliseconds: every action
     * waits for it. Thread: the policy worker's one thread — calls never overlap, with themselves or with
     * any other call into this plugin. The plugin's `execute` is never called when it provides only a
     * policy. */
    ah_status_t (*check)(struct ah_plugin *plugin, const ah_policy_query_t *query, ah_policy_verdict_t *verdict);
} ah_ext_policy_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_POLICY_H */
