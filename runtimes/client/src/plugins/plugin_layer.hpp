// A plugin folder as the one layer of its OCI artifact: a gzip'd tar (libarchive, pax) of regular files
// and directories only, manifest.json first, every entry owned by 0:0 with time 0 and mode 0644 or 0755,
// so pushing the same folder twice gives the same digest. Read back in two passes: scan_plugin_layer
// looks at everything (paths, types, manifest.json, the first bytes of each file) without writing a byte;
// extract_plugin_layer then writes into a fresh staging directory. A link, a device, an absolute path or
// one with ".." is refused in both.
//
// Threads: any; nothing is shared.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "images/blob_store.hpp"
#include "images/oci.hpp"

namespace actionhost::client::plugins {

// Packs `dir` into `store`; returns the layer's descriptor (media type left to the caller).
// std::runtime_error naming what cannot be packed (a link, a special file, an unreadable file).
images::Descriptor write_plugin_layer(const std::string &dir, const images::BlobStore &store, uint64_t max_bytes);

struct LayerScan {
    std::string manifest_json;                  // manifest.json's text ("" when absent)
    std::map<std::string, std::string> heads;   // regular file path → its first 64 bytes (an ELF header)
    uint64_t files = 0, bytes = 0;
};

// Reads the layer at `path` without writing anything. std::runtime_error naming a bad entry.
LayerScan scan_plugin_layer(const std::string &path, uint64_t max_bytes);

// Writes the layer's files into `dest` (an empty directory). std::runtime_error with why.
void extract_plugin_layer(const std::string &path, const std::string &dest, uint64_t max_bytes);

}  // namespace actionhost::client::plugins
