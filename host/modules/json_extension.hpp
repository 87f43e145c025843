// The host service "actionhost.json/1" (sdk/include/actionhost/ext/json.h): JSON writing and reading for
// plugins, done by the host's own JSON library (nlohmann, as every request is), so no plugin escapes a
// string by hand. One table for the whole process: the host's plugins, its policy worker and the workers
// of isolated plugins all hand out this one.
//
// Threads: the table is immutable; its functions follow the header (any thread, one writer or document
// never used from two threads at once).
#pragma once

#include <actionhost/ext/json.h>

namespace actionhost::host {

// The table; static, valid for the process's life.
const ah_ext_json_t &json_extension();

}  // namespace actionhost::host
