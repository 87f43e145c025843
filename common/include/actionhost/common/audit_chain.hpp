// The audit trail's file format: a hash chain of JSON lines in numbered segment files, written by one
// process (ah-sandbox-init, outside the sandbox) and read and verified by any other (the client
// library, `ahctl log`). docs/security.md ("The audit trail") says what it guarantees and what not.
//
//   <dir>/000001.log, 000002.log, ...   the segments, oldest first; one entry a line:
//       {"hash":"<64 hex>","entry":{"kind":K,"prev":"<64 hex>","record":{...},"seq":N,"time":T}}
//     hash = SHA-256 of the bytes of "entry"'s value exactly as written (so verifying never depends on
//     re-serialising); prev = the previous entry's hash (64 zeros for the first entry of a chain); seq
//     counts from 1 without a gap across segments; time is the writer's clock (seconds since the epoch).
//   <dir>/head                          {"hash":H,"segment":S,"seq":N}: the last entry written, replaced
//     (write + rename) after each append, so a cut tail (a truncated or removed last segment) is seen.
//
// Rotation: a segment past `max_file_bytes` is closed and the next one begun; the chain goes on across
// files (the first entry of a segment chains to the last of the one before). Past `keep_files` segments
// the oldest is removed, and the writer says so in the chain itself: a "rotation" entry
// {"dropped_through_segment": S, "last_seq": N, "last_hash": H} names the last entry of what was dropped,
// which the first kept entry chains to. A missing segment without such an entry is a break.
//
// Threads: a writer is one thread's; reading and verifying need nothing but the files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actionhost/common/result.hpp"

namespace actionhost::common::audit {

inline constexpr const char *kGenesisHash = "0000000000000000000000000000000000000000000000000000000000000000";
// The longest line the writer makes: a record bigger than this is replaced by a note saying so.
inline constexpr size_t kMaxLineBytes = 256 * 1024;

struct Limits {
    uint64_t max_file_bytes = 8u << 20;  // a segment past this is rotated
    unsigned keep_files = 8;            // segments kept (>= 2)
};

// One entry as read back: its fields and where it was.
struct Entry {
    uint64_t seq = 0;
    double time = 0;
    std::string kind, prev, hash;
    nlohmann::json record;
    unsigned segment = 0;
    size_t line = 0;  // 1-based within its segment
};

// Where a session's trail is kept: <state_dir>/audit/<session>, the session id made a safe file name
// (anything but [A-Za-z0-9_.-] becomes '_', and a leading '.' too). Shared by the sandbox backend,
// which tells ah-sandbox-init, and the client library, which reads it.
inline std::string trail_dir(const std::string &state_dir, const std::string &session_id) {
    std::string name = session_id.empty() ? "_" : session_id;
    for (char &c : name)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')) c = '_';
    if (name[0] == '.') name[0] = '_';
    return state_dir + "/audit/" + name;
}

// The file name of segment `n` ("000007.log").
std::string segment_name(unsigned n);

class Writer {
  public:
    // Begins the chain in `dir` (made 0700 when missing), or continues the one already there from its
    // newest entry. Fails when the directory cannot be made or the newest entry cannot be read.
    static Result<Writer> open(const std::string &dir, Limits limits);
    Writer(Writer &&) noexcept;
    Writer &operator=(Writer &&) = delete;
    ~Writer();

    // Appends one entry (rotating first when the segment is full) and replaces the head. `record` is an
    // object; one that would make a line past kMaxLineBytes is replaced by {"oversized": BYTES}.
    Status append(const std::string &kind, const nlohmann::json &record, double time);
    uint64_t last_seq() const { return seq_; }
    const std::string &last_hash() const { return hash_; }

  private:
    Writer() = default;
    Status begin_segment(unsigned n);
    Status write_line(const std::string &kind, const nlohmann::json &record, double time);
    std::string dir_;
    Limits limits_;
    int fd_ = -1;
    unsigned segment_ = 0;
    uint64_t size_ = 0;
    uint64_t seq_ = 0;
    std::string hash_ = kGenesisHash;
};

// Every entry of the chain in `dir`, oldest first, each line parsed but not checked (verify() checks).
// Fails when the directory holds no segment or a line is not an entry.
Result<std::vector<Entry>> read_entries(const std::string &dir);

// What a verification found, when the chain holds.
struct Summary {
    uint64_t entries = 0, first_seq = 0, last_seq = 0;
    unsigned first_segment = 0, last_segment = 0;
    std::string last_hash;
    uint64_t dropped_through_seq = 0;  // entries before first_seq were dropped by declared rotation (0: none)
};

// Checks the whole chain: every hash, every link, seq without a gap, segments without a gap, a missing
// oldest part declared by a rotation entry, and the head naming the last entry. The error names the
// first break: its file, line and seq, and what is wrong. Entries past the head are looked at again
// (up to 150 ms) before they count: a live writer replaces the head just after each line.
Result<Summary> verify(const std::string &dir);

// Reads entries as they are appended: each call to poll() hands the complete lines written since the
// last one to `on_entry`, following rotation into the next segment. Polling (bounded by the caller).
class Follower {
  public:
    // Starts after the entry `after_seq` (0: from the oldest kept entry).
    Follower(std::string dir, uint64_t after_seq = 0);
    // The number of entries handed over; an error when a line cannot be read as an entry.
    Result<size_t> poll(const std::function<void(const Entry &)> &on_entry);

  private:
    std::string dir_;
    uint64_t after_seq_;
    unsigned segment_ = 0;
    uint64_t offset_ = 0;
    size_t line_ = 0;
};

}  // namespace actionhost::common::audit
