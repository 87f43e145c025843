// Receiving the multipart/form-data body of /upload_file: the "file" part is streamed to a hidden temp file
// in the destination (never held in memory), every other part is read and dropped. Split from files_api so
// the fuzz target (fuzz/multipart) drives exactly the parsing the endpoint does, without a server.
#pragma once

#include <actionhost/common/result.hpp>
#include <cstdint>
#include <istream>
#include <string>

namespace actionhost::host {

struct ReceivedUpload {
    std::string temp;      // the hidden temp file holding the "file" part ("" when there was none)
    std::string filename;  // the part's filename parameter, as the client sent it
    std::string error;     // a local failure (cannot write into the destination)
    uint64_t size = 0;
    bool too_large = false;
    bool kept = false;  // set once `temp` has been renamed into place; otherwise the destructor removes it
    ReceivedUpload() = default;
    ReceivedUpload(const ReceivedUpload &) = delete;
    ReceivedUpload &operator=(const ReceivedUpload &) = delete;
    ~ReceivedUpload();
};

// Parses the body (`content_type` gives its boundary). Fails with why the body is not a well-formed
// multipart form; `out` says what was received either way.
common::Status receive_upload(const std::string &content_type, std::istream &body, const std::string &dir, uint64_t limit,
                              ReceivedUpload &out);

}  // namespace actionhost::host
