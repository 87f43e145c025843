/*
 * actionhost SDK — ABI basics shared by every module.
 *
 * Rules every header of this SDK follows (docs/design.md, "The C ABI", says why):
 *  - Only C crosses: fixed-width integers, enums carried as int32_t, no exceptions, no C++ types. The
 *    headers compile as C99 and C11 (the build checks both).
 *  - Every struct that crosses starts with `struct_size` (or an ah_version_t then `struct_size` for the
 *    entry structs). A receiver reads only the fields that size covers. Within a major version structs
 *    are append-only; a new major may reorder (the host refuses modules of another major).
 *  - Every function states its thread with a tag (below), whether it blocks, and who owns what it takes
 *    and returns.
 *  - Strings are UTF-8, NUL-terminated unless passed as {ptr, len}. Borrowed pointers are valid only
 *    for the duration of the call they were passed to, unless the function's comment says otherwise.
 *  - Function pointers in a published struct are never NULL.
 *  - Optional capabilities are extensions, found by id with get_extension. Ids are
 *    "actionhost.<name>/<version>" (name in snake_case, version an integer bumped on any change to the
 *    table); their macros are AH_EXT_<NAME>; their tables are ah_ext_<name>_t (ext/ holds them).
 */
/*
 * Thread tags (after CLAP's): each function's comment starts with the threads the host — or, for
 * runtime backends, the client library — actually calls it on, or, for a service, the threads a module
 * may call it from (tests/abi/fixtures/thread_fixture_plugin.cpp checks the plugin's on the real host):
 *  [load-thread]  the one thread loading a plugin: in the host, a loader thread at start for the plugins
 *                 of its command line, or the HTTP worker thread of the first request needing a plugin
 *                 loaded on demand; in the policy worker process, its one thread; in an isolated
 *                 plugin's worker process ("isolation": "process"), its main thread; in the client's
 *                 in-process runtime (cli), the client thread that connects. create, then init run on
 *                 it, one after the other, never concurrently with another call into that plugin.
 *  [call-thread]  a host worker thread serving one request (an action, an HTTP route) — in an isolated
 *                 plugin's worker, a thread of the worker's own per forwarded call; several run at
 *                 once, within the limits the function states.
 *  [main-thread]  the thread that stops the host: the host process's main thread, after a signal or a
 *                 failed start (in the cli runtime, the client thread that closes it); it also destroys.
 *  [policy-thread] the policy worker process's one thread: its calls never overlap.
 *  [client-thread] (runtime backends) the client thread driving one runtime: calls on one runtime never
 *                 overlap; different runtimes may be driven from different threads at once.
 *  [any-thread]   any thread, concurrently with anything; for a service: callable from any thread.
 *  [same-thread]  only on the thread of the call that is failing or being answered.
 * A '|' joins alternatives: [main-thread | load-thread] (stopped at exit, or at once when its load fails).
 */
#ifndef ACTIONHOST_ABI_H
#define ACTIONHOST_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define AH_EXTERN_C extern "C"
#else
#define AH_EXTERN_C
#endif

/* Marks the single symbol a module exports. Build modules with -fvisibility=hidden. */
#define AH_EXPORT AH_EXTERN_C __attribute__((visibility("default")))

/* The ABI this header describes — the one place it is written (sdk/CMakeLists.txt reads it from here).
 * A host refuses a module built for another major, or for a minor newer than its own; older minors load
 * (their structs are shorter, which struct_size tells).
 * 2.0: ah_host_t and ah_runtime_host_t carry host_data; ah_host_info_t no longer names any plugin's
 *      settings (they are configuration keys a plugin's manifest declares); one extension id scheme. */
#define AH_ABI_VERSION_MAJOR 2
#define AH_ABI_VERSION_MINOR 0
#define AH_ABI_VERSION_PATCH 0

typedef struct ah_version {
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} ah_version_t;

#define AH_ABI_VERSION_INIT {AH_ABI_VERSION_MAJOR, AH_ABI_VERSION_MINOR, AH_ABI_VERSION_PATCH}

/* Status codes returned by every fallible entry point. Details go through the host's set_error. */
typedef int32_t ah_status_t;
enum {
    AH_OK = 0,
    AH_ERR_INVALID_ARGUMENT = 1, /* the caller passed something malformed */
    AH_ERR_UNSUPPORTED = 2,      /* the module does not do this (unknown action, missing capability) */
    AH_ERR_STATE = 3,            /* called in the wrong lifecycle state */
    AH_ERR_TIMEOUT = 4,
    AH_ERR_IO = 5,               /* the OS or a peer process failed */
    AH_ERR_INTERNAL = 6          /* a bug or an unexpected exception caught at the barrier */
};

/* Log levels, ordered. AH_LOG_PLUGIN_MISBEHAVING marks a module breaking the ABI contract
 * (bad JSON, a call in the wrong state, ...): hosts always surface it. */
typedef int32_t ah_log_level_t;
enum {
    AH_LOG_DEBUG = 0,
    AH_LOG_INFO = 1,
    AH_LOG_WARNING = 2,
    AH_LOG_ERROR = 3,
    AH_LOG_PLUGIN_MISBEHAVING = 4
};

/* A view of bytes. The view never owns them: who does, and for how long, is said where the view is
 * passed or returned (most often: borrowed for the duration of the call). */
typedef struct ah_bytes {
    const char *ptr;
    size_t len;
} ah_bytes_t;

#endif /* ACTIONHOST_ABI_H */
