// Where an image comes from, and how each kind gets into the store's blobs:
//   oci:DIR[:TAG]          an OCI image layout directory (index.json, blobs/sha256/...); TAG picks the
//                          manifest annotated org.opencontainers.image.ref.name=TAG (none: the only one)
//   docker-archive:FILE    what `docker save` writes (manifest.json, a config and layer tars)
//   NAME                   an image the store already knows by that name (a snapshot, an earlier pull)
//   anything else          a registry reference, [registry/]path[:tag][@digest] as the docker CLI reads it
// Every blob is copied into the store verified; the importers return the manifest's digest, whose
// manifest (OCI form) is then in the store too.
//
// Threads: functions of their arguments and the store's files.
#pragma once

#include <functional>
#include <string>

#include "images/blob_store.hpp"
#include "images/oci.hpp"

namespace actionhost::client::images {

struct ImageSource {
    enum Kind { Registry, OciLayout, DockerArchive };
    Kind kind = Registry;
    std::string text;  // as given
    std::string path;  // OciLayout: the directory; DockerArchive: the file (both absolute)
    std::string tag;   // OciLayout: the tag ("" = the only manifest)
};

// Throws std::invalid_argument for an empty reference or a prefix without a path.
ImageSource parse_image_source(const std::string &text);

// Imports the layout's manifest for `platform` (an index resolved) with its config and layers; returns
// the manifest's digest. std::runtime_error with why (a missing or mismatched blob refuses it whole).
std::string import_oci_layout(const ImageSource &source, const BlobStore &store, const Platform &platform);

// Imports the archive's first image (its config, its layers as they are); writes an OCI manifest for it
// and returns that manifest's digest. std::runtime_error with why.
std::string import_docker_archive(const ImageSource &source, const BlobStore &store, int64_t max_layer_bytes);

}  // namespace actionhost::client::images
