/*
 * actionhost SDK — optional host service "actionhost.partial_streams/1": a plugin emits a chunk of a
 * running call's partial output marked as the command's stdout or stderr, so a client following the
 * session live (GET /stream, docs/api.md) can keep the two apart — `ahctl run` writes them to its own
 * stdout and stderr.
 *
 * A host-side extension, not a change to ah_host_t: obtained with
 * host->get_extension(host, AH_EXT_PARTIAL_STREAMS); NULL from an older host (then use
 * host->emit_partial, which carries no mark). Chunks emitted through either function of one call are
 * delivered in call order. The table is owned by the host and valid for the host's life.
 */
#ifndef ACTIONHOST_EXT_PARTIAL_STREAMS_H
#define ACTIONHOST_EXT_PARTIAL_STREAMS_H

#include "../host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_PARTIAL_STREAMS "actionhost.partial_streams/1"

/* Which output of the command a chunk is; carried as int32_t. A chunk of emit_partial is neither (a
 * terminal's merged output). */
typedef enum ah_output_stream {
    AH_OUTPUT_STDOUT = 1,
    AH_OUTPUT_STDERR = 2
} ah_output_stream_t;

typedef struct ah_ext_partial_streams {
    uint32_t struct_size;
    /* [any-thread, while `execute` of this call runs] Emits `chunk` (raw text as produced; copied) of `call` marked as `stream` (an ah_output_stream_t)
     * to anyone following the session live. Does not change the final observation. Thread: any, while
     * `execute` of this call runs (afterwards AH_ERR_STATE). Blocking: no. AH_ERR_INVALID_ARGUMENT for
     * an unknown `stream`. */
    ah_status_t (*emit_partial_stream)(const ah_host_t *host, ah_call_t *call, int32_t stream, ah_bytes_t chunk);
} ah_ext_partial_streams_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_PARTIAL_STREAMS_H */
