/*
 * actionhost SDK — optional client service "actionhost.images/1": container images for a backend that
 * builds its sandbox's root itself (the `sandbox` runtime) instead of handing an image to a daemon.
 *
 * The client library keeps an image store (under its state directory): images pulled from registries
 * over the OCI Distribution API, or imported from an OCI layout directory or a `docker save` archive,
 * every blob verified against its digest, every layer unpacked once into a directory shared by every
 * sandbox of that image. A backend asks for the image the user configured and gets the layer
 * directories to stack (overlayfs), bottom first.
 *
 * Obtained with host->get_extension(host, AH_EXT_RUNTIME_IMAGES); NULL from a client library without
 * it. A new id, no published struct changed.
 */
#ifndef ACTIONHOST_EXT_RUNTIME_IMAGES_H
#define ACTIONHOST_EXT_RUNTIME_IMAGES_H

#include "../runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AH_EXT_RUNTIME_IMAGES "actionhost.images/1"

typedef struct ah_ext_runtime_images {
    uint32_t struct_size;
    /* [any-thread] The image this runtime's configuration names — sandbox.base_container_image (or `ahctl --image`)
     * when the user set it; OpenHands' default image is never implied — made ready in the store.
     * `owners_json` says who the unpacked files belong to: {"map_owners": true, "uid_base": N,
     * "gid_base": N} maps every owner into the id range from N (a root caller's sandbox ids), {} leaves
     * them the caller's (set-user/group-ID bits dropped). Borrowed.
     * On AH_OK, *out_json is NULL when no image is configured, else a JSON object: {"name": the reference
     * as given, "digest": the manifest's, "store": the store's directory, "layers": [directories, bottom
     * first], "env": ["K=V", ...], "working_dir": "...", "user": "..."}; the backend frees it with
     * free_string. While the sandbox runs on the layers, the backend holds a lease on the image (the C++
     * support library's image_lease.hpp, or a file <owned dir>/image-lease.json of the same form), or
     * removing the image may remove them. On failure (a
     * registry's refusal, a digest mismatch, a layer refused, ...) a status other than AH_OK and *out_json
     * is {"error": why}, freed the same way.
     * Progress: host->set_status. Blocking: yes (a pull may take minutes). Thread: any. */
    ah_status_t (*prepare)(const struct ah_runtime_host *host, const char *owners_json, char **out_json);
    /* [any-thread] Frees a string this service returned. Blocking: no. Thread: any. */
    void (*free_string)(const struct ah_runtime_host *host, char *text);
} ah_ext_runtime_images_t;

#ifdef __cplusplus
}
#endif

#endif /* ACTIONHOST_EXT_RUNTIME_IMAGES_H */
