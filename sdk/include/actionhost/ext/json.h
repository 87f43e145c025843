/*
 * actionhost SDK — optional host service "actionhost.json/1": JSON for plugin authors, so that no
 * plugin builds an observation by pasting strings together or reads its arguments with strstr. The host
 * does the work with its own JSON library (the one it parses every request with); a plugin links
 * nothing for it, and C and C++ plugins use it alike (a C++ wrapper: sdk::JsonWriter and sdk::JsonDoc in
 * plugin.hpp).
 *
 * A host-side extension, not a change to ah_host_t: obtained with
 * host->get_extension(host, AH_EXT_JSON); NULL from a host older than it. The table is owned by the
 * host and valid for the host's life.
 *
 * Writing. A writer builds one JSON value, the way a plugin thinks of an observation:
 *
 *     ah_json_writer_t *w = json->writer_new();
 *     json->begin_object(w, NULL);                      // the top level: no key
 *     json->put_string(w, "observation", "uname");
 *     json->put_string(w, "content", text);             // quotes, backslashes, newlines: escaped
 *     json->begin_object(w, "extras");
 *     json->put_int(w, "exit_code", 0);
 *     json->end(w);                                     // closes "extras"
 *     json->end(w);                                     // closes the top object
 *     ah_bytes_t out;
 *     if (json->finish(w, &out) == AH_OK) host->set_observation(host, call, out);
 *     else host->set_error(host, call, json->writer_error(w));
 *     json->writer_free(w);
 *
 * Every put_ and begin_ takes the key the value gets in the enclosing object (a NUL-terminated UTF-8
 * string, so a key holds no NUL); inside an array, and for the top-level value, the key must be NULL. Keys keep the order they were put in. A misuse (a key
 * missing or one too many, the same key twice in one object, a second top-level value, end() with
 * nothing open, finish() with something open, nesting deeper than 256, a number that is not finite) is
 * refused with AH_ERR_INVALID_ARGUMENT or AH_ERR_STATE; the first one is kept: every later call on that
 * writer returns the same status and writes nothing, and writer_error says what it was, so a plugin may
 * check only finish. Strings are UTF-8: bytes that are not valid UTF-8 are written as U+FFFD, never
 * refused (a command's output is whatever the command printed).
 *
 * Reading. A document is one parsed JSON text, read through JSON pointers (RFC 6901: "" the whole
 * value, "/args/command" a member of a member, "/args/paths/0" an array's first element; "~1" stands for
 * '/' in a key and "~0" for '~'):
 *
 *     ah_json_doc_t *d = json->parse(call->action_json);
 *     ah_bytes_t command;
 *     if (json->get_string(d, "/args/command", &command) == AH_OK) ...
 *     json->doc_free(d);
 *
 * A getter returns AH_OK and fills `out` when the pointer names a value of its type; otherwise
 * AH_ERR_INVALID_ARGUMENT and leaves `out` as it was (type_at tells a missing value from one of another
 * type). Views a document returns stay valid until doc_free; strings are NUL-terminated after their
 * `len` bytes (and may hold NULs inside, as JSON's \u0000 allows).
 *
 * Threads (tags: abi.h): every function is [any-thread]. A writer or a document is not shared: calls on
 * one of them must not overlap (distinct writers and documents may be used on any threads at once).
 * Blocking: none; each call is in memory and returns promptly.
 */
#ifndef ACTIONHOST_EXT_JSON_H
#define ACTIONHOST_EXT_JSON_H

#include "../host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_JSON "actionhost.json/1"

/* A JSON value being written. Opaque; made by writer_new, owned by the caller until writer_free. */
typedef struct ah_json_writer ah_json_writer_t;

/* One parsed JSON text. Opaque; made by parse, owned by the caller until doc_free. */
typedef struct ah_json_doc ah_json_doc_t;

/* The type of the value a pointer names; carried as int32_t. */
typedef int32_t ah_json_type_t;
enum {
    AH_JSON_MISSING = 0, /* nothing there (or the pointer is malformed, or the document failed to parse) */
    AH_JSON_NULL = 1,
    AH_JSON_BOOL = 2,
    AH_JSON_NUMBER = 3,
    AH_JSON_STRING = 4,
    AH_JSON_ARRAY = 5,
    AH_JSON_OBJECT = 6
};

typedef struct ah_ext_json {
    uint32_t struct_size;

    /* ---- writing ---- */

    /* [any-thread] A new, empty writer; NULL only when memory ran out. */
    ah_json_writer_t *(*writer_new)(void);
    /* [any-thread] Frees `w` and every view finish returned for it. NULL is ignored. */
    void (*writer_free)(ah_json_writer_t *w);

    /* [any-thread] Opens an object or an array as the value of `key` (borrowed; NULL inside an array and
     * at the top level). Closed by end. */
    ah_status_t (*begin_object)(ah_json_writer_t *w, const char *key);
    ah_status_t (*begin_array)(ah_json_writer_t *w, const char *key);
    /* [any-thread] Closes the innermost object or array still open. */
    ah_status_t (*end)(ah_json_writer_t *w);

    /* [any-thread] Puts one value under `key` (as begin_object). Strings are copied: `value` is a
     * NUL-terminated string for put_string, any bytes (NULs included) for put_string_n; NULL for
     * put_string is AH_ERR_INVALID_ARGUMENT. put_double refuses NaN and the infinities, which JSON
     * cannot hold. put_bool writes true for any non-zero `value`. */
    ah_status_t (*put_string)(ah_json_writer_t *w, const char *key, const char *value);
    ah_status_t (*put_string_n)(ah_json_writer_t *w, const char *key, ah_bytes_t value);
    ah_status_t (*put_int)(ah_json_writer_t *w, const char *key, int64_t value);
    ah_status_t (*put_double)(ah_json_writer_t *w, const char *key, double value);
    ah_status_t (*put_bool)(ah_json_writer_t *w, const char *key, int32_t value);
    ah_status_t (*put_null)(ah_json_writer_t *w, const char *key);
    /* [any-thread] Puts a copy of the value `pointer` names in `doc` (a parsed document) under `key`: an
     * argument passed through to the observation unchanged. AH_ERR_INVALID_ARGUMENT when there is none. */
    ah_status_t (*put_value_of)(ah_json_writer_t *w, const char *key, const ah_json_doc_t *doc, const char *pointer);

    /* [any-thread] The JSON text of the value written, on one line, once every object and array is
     * closed. `*out` (a NUL-terminated view) is owned by `w`: valid until the next call on `w`. The
     * writer may be finished again, or written on after an error-free finish only by writer_free. */
    ah_status_t (*finish)(ah_json_writer_t *w, ah_bytes_t *out);
    /* [any-thread] What the first refused call on `w` was, in English (for set_error); NULL while
     * nothing was refused. Owned by `w`, valid until writer_free. */
    const char *(*writer_error)(const ah_json_writer_t *w);

    /* ---- reading ---- */

    /* [any-thread] Parses `text` (borrowed; copied as needed). Never NULL unless memory ran out: a text
     * that is not JSON (or is invalid UTF-8, or nests deeper than 256) gives a document whose doc_error
     * says why and whose every pointer is AH_JSON_MISSING. */
    ah_json_doc_t *(*parse)(ah_bytes_t text);
    /* [any-thread] Frees `d` and every view taken from it. NULL is ignored. */
    void (*doc_free)(ah_json_doc_t *d);
    /* [any-thread] Why parse failed, in English; NULL when it did not. Owned by `d`. */
    const char *(*doc_error)(const ah_json_doc_t *d);

    /* [any-thread] The type of the value `pointer` names (AH_JSON_MISSING when none). */
    ah_json_type_t (*type_at)(const ah_json_doc_t *d, const char *pointer);
    /* [any-thread] The getters (see "Reading" above). get_int accepts a number with no fraction that fits
     * in int64_t (3 and 3.0, not 3.5 or 1e30); get_double any number. */
    ah_status_t (*get_string)(const ah_json_doc_t *d, const char *pointer, ah_bytes_t *out);
    ah_status_t (*get_int)(const ah_json_doc_t *d, const char *pointer, int64_t *out);
    ah_status_t (*get_double)(const ah_json_doc_t *d, const char *pointer, double *out);
    ah_status_t (*get_bool)(const ah_json_doc_t *d, const char *pointer, int32_t *out);
    /* [any-thread] The number of elements of the array or members of the object `pointer` names. */
    ah_status_t (*get_size)(const ah_json_doc_t *d, const char *pointer, size_t *out);
    /* [any-thread] The key of member `index` of the object `pointer` names, members ordered by their keys'
     * bytes (of a key written twice in the text, the last value is kept); a view valid until doc_free.
     * With get_size, how a plugin walks an object whose keys it does not know. */
    ah_status_t (*get_key)(const ah_json_doc_t *d, const char *pointer, size_t index, ah_bytes_t *out);
    /* [any-thread] The value `pointer` names, as one line of JSON text (a view valid until doc_free):
     * a sub-object handed on whole, e.g. to another parser. */
    ah_status_t (*get_text)(const ah_json_doc_t *d, const char *pointer, ah_bytes_t *out);
} ah_ext_json_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_JSON_H */
