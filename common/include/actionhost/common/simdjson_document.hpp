// simdjson as the reader of common::parse_json and common::inspect_observation, and of the few hot-path
// readers that take fields straight from its document (the bash plugin's action arguments).
//
// Why: nlohmann's lexer reads a document one character at a time through an input adapter, about 100
// instructions per byte; on an action's path that was most of the host's and the bash plugin's work
// (the request, the plugin's arguments, the observation check: 100k of the host's 220k instructions per
// `echo hi`). simdjson validates UTF-8 and structure with SIMD and reads the same documents for a few
// instructions per byte. nlohmann stays the project's JSON model (the documents code builds and reads) and
// the judge of what simdjson refuses: anything simdjson will not read is parsed again by nlohmann, so what
// is accepted and every error text stay nlohmann's (see parse_json).
#pragma once

#include <simdjson.h>

#include <string_view>

namespace actionhost::common {

// Documents nested deeper than this go to nlohmann (which applies kMaxJsonDepth and words the refusal):
// far above anything an action or an observation holds, far below kMaxJsonDepth, so the depth rule is
// only ever nlohmann's.
inline constexpr size_t kSimdjsonMaxDepth = 64;

// Documents up to this size are read by a parser each thread keeps (its buffers, about 14 bytes per byte of
// the largest document it read, are reused); a larger one gets a parser of its own, freed with it, so no
// thread keeps megabytes after one large cell output.
inline constexpr size_t kReusedParserBytes = 16 * 1024;

// Larger texts are not given to simdjson by default: its document takes about 12 bytes per value or comma
// (a 64 MiB body of "0,0,0,..." would need 750 MB beside the nlohmann document built from it), where
// nlohmann's parser needs none beyond its document.
inline constexpr size_t kSimdjsonMaxBytes = 8 * 1024 * 1024;

namespace simdjson_detail {
// A thread's parser for small documents of one depth limit, shared by every caller on the thread.
struct ReusedParser {
    explicit ReusedParser(size_t max_depth) : ready(parser.allocate(0, max_depth) == simdjson::SUCCESS) {}
    simdjson::dom::parser parser{kReusedParserBytes};
    bool ready;
    bool busy = false;  // a visit in progress: a nested read must not overwrite the document it reads
};
template <size_t MaxDepth>
ReusedParser &reused_parser() {
    thread_local ReusedParser reused(MaxDepth);
    return reused;
}
}  // namespace simdjson_detail

// Calls `visit(simdjson::dom::element root)` with `text` parsed by simdjson and returns true; returns false
// without calling it when simdjson refuses the text (invalid JSON, invalid UTF-8, a number beyond 64 bits,
// nesting deeper than MaxDepth) or it is longer than MaxBytes. The element lives only during the call. Any
// thread; a visit may read another document.
template <size_t MaxDepth = kSimdjsonMaxDepth, size_t MaxBytes = kSimdjsonMaxBytes, typename Visit>
bool with_simdjson_document(std::string_view text, Visit &&visit) {
    // An empty text is no JSON; and an empty view may have no data at all, which simdjson would copy
    // from (memcpy from NULL: undefined, and UBSan says so).
    if (text.empty() || text.size() > MaxBytes) return false;
    auto read = [&](simdjson::dom::parser &parser) {
        simdjson::dom::element root;
        if (parser.parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS) return false;
        visit(root);
        return true;
    };
    simdjson_detail::ReusedParser &reused = simdjson_detail::reused_parser<MaxDepth>();
    if (text.size() <= kReusedParserBytes && reused.ready && !reused.busy) {
        reused.busy = true;
        struct Release {
            bool &busy;
            ~Release() { busy = false; }
        } release{reused.busy};
        return read(reused.parser);
    }
    simdjson::dom::parser own;  // sized below: a capacity limit would refuse texts under simdjson's 32-byte minimum
    if (own.allocate(text.size(), MaxDepth) != simdjson::SUCCESS) return false;
    return read(own);
}

}  // namespace actionhost::common
