#include "actionhost/common/audit_chain.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "actionhost/common/digest.hpp"
#include "actionhost/common/io/file_tail.hpp"
#include "actionhost/common/json_io.hpp"

namespace actionhost::common::audit {
namespace fs = std::filesystem;
namespace {

// The fixed text around an entry: the hash is at a known place and the entry's bytes are everything
// between the prefix and the closing brace, so they are hashed exactly as written.
constexpr std::string_view kPrefix = "{\"hash\":\"";
constexpr std::string_view kMiddle = "\",\"entry\":";
constexpr size_t kHashLength = 64;
constexpr size_t kBodyAt = kPrefix.size() + kHashLength + kMiddle.size();

std::string sys_error(const std::string &what) { return what + ": " + std::strerror(errno); }

// The segments of `dir`, by number, ascending.
std::vector<unsigned> segments_of(const std::string &dir) {
    std::vector<unsigned> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() != 10 || name.substr(6) != ".log" || !std::all_of(name.begin(), name.begin() + 6, ::isdigit)) continue;
        out.push_back(static_cast<unsigned>(std::stoul(name.substr(0, 6))));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string read_whole(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return {};
    std::string out;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    ::close(fd);
    return out;
}

bool is_hex_hash(std::string_view s) {
    return s.size() == kHashLength && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// One line (without its newline) as an entry; `check_hash`: the stored hash must be the body's.
Result<Entry> parse_line(std::string_view line, bool check_hash) {
    if (line.size() <= kBodyAt + 1 || line.substr(0, kPrefix.size()) != kPrefix ||
        line.substr(kPrefix.size() + kHashLength, kMiddle.size()) != kMiddle || line.back() != '}')
        return fail("not an entry line");
    Entry e;
    e.hash = std::string(line.substr(kPrefix.size(), kHashLength));
    if (!is_hex_hash(e.hash)) return fail("its hash is not 64 hex digits");
    const std::string_view body = line.substr(kBodyAt, line.size() - kBodyAt - 1);
    if (check_hash && sha256_hex(body) != e.hash) return fail("its hash does not match its content (the entry was changed)");
    auto parsed = parse_json(body);
    if (!parsed || !parsed.value().is_object()) return fail("its entry is not a JSON object");
    const nlohmann::json &j = parsed.value();
    if (!j.contains("seq") || !j["seq"].is_number_unsigned() || !j.contains("prev") || !j["prev"].is_string() ||
        !j.contains("kind") || !j["kind"].is_string() || !j.contains("time") || !j["time"].is_number() || !j.contains("record"))
        return fail("its entry lacks seq, prev, kind, time or record");
    e.seq = j["seq"].get<uint64_t>();
    e.prev = j["prev"].get<std::string>();
    e.kind = j["kind"].get<std::string>();
    e.time = j["time"].get<double>();
    e.record = j["record"];
    return e;
}

// Calls `each` for every complete line of `text`; returns false when the text ends in a partial line.
template <class F>
bool for_each_line(const std::string &text, F &&each) {
    size_t at = 0, n = 0;
    while (at < text.size()) {
        const size_t end = text.find('\n', at);
        if (end == std::string::npos) return false;
        if (!each(std::string_view(text).substr(at, end - at), ++n)) return true;
        at = end + 1;
    }
    return true;
}

Status write_all(int fd, std::string_view bytes) {
    // A regular file takes all of it at once but for a signal or a full disk; bounded retries.
    for (int tries = 0; !bytes.empty() && tries < 64; ++tries) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail(sys_error("cannot write the audit trail"), errno);
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    return bytes.empty() ? Status(ok()) : Status(fail("cannot write the audit trail: no progress"));
}

// The last complete line of the segment file `path` as an entry, or nullopt when it has none.
std::optional<Entry> last_entry_of(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return std::nullopt;
    std::string tail = io::file_tail(fd, kMaxLineBytes + 4096);
    ::close(fd);
    if (tail.empty() || tail.back() != '\n') return std::nullopt;
    tail.pop_back();
    const size_t start = tail.rfind('\n');
    auto e = parse_line(std::string_view(tail).substr(start == std::string::npos ? 0 : start + 1), true);
    if (!e) return std::nullopt;
    return std::move(e).value();
}

}  // namespace

std::string segment_name(unsigned n) {
    char name[32];
    std::snprintf(name, sizeof name, "%06u.log", n);
    return name;
}

Writer::Writer(Writer &&o) noexcept
    : dir_(std::move(o.dir_)), limits_(o.limits_), fd_(std::exchange(o.fd_, -1)), segment_(o.segment_), size_(o.size_), seq_(o.seq_),
      hash_(std::move(o.hash_)) {}

Writer::~Writer() {
    if (fd_ >= 0) ::close(fd_);
}

Result<Writer> Writer::open(const std::string &dir, Limits limits) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return fail("cannot make the audit directory " + dir + ": " + ec.message());
    ::chmod(dir.c_str(), 0700);
    Writer w;
    w.dir_ = dir;
    w.limits_ = limits;
    w.limits_.keep_files = std::max(2u, limits.keep_files);
    const std::vector<unsigned> segments = segments_of(dir);
    if (segments.empty()) {
        if (auto begun = w.begin_segment(1); !begun) return begun.as_failure();
        return w;
    }
    // Continued from the newest entry; a newest segment that ends in a partial line (a crash mid-write)
    // is left as it is and the chain goes on in a new segment, so no line is ever glued to half a line.
    const std::string newest = dir + "/" + segment_name(segments.back());
    std::optional<Entry> last;
    for (auto it = segments.rbegin(); it != segments.rend() && !last; ++it) last = last_entry_of(dir + "/" + segment_name(*it));
    if (last) {
        w.seq_ = last->seq;
        w.hash_ = last->hash;
    }
    const std::string text = read_whole(newest);
    if (!text.empty() && text.back() != '\n') {
        if (auto begun = w.begin_segment(segments.back() + 1); !begun) return begun.as_failure();
        return w;
    }
    w.fd_ = ::open(newest.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (w.fd_ < 0) return fail(sys_error("cannot open " + newest));
    w.segment_ = segments.back();
    w.size_ = text.size();
    return w;
}

Status Writer::begin_segment(unsigned n) {
    const std::string path = dir_ + "/" + segment_name(n);
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return fail(sys_error("cannot make " + path));
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    segment_ = n;
    size_ = 0;
    return ok();
}

Status Writer::write_line(const std::string &kind, const nlohmann::json &record, double time) {
    nlohmann::json entry = {{"kind", kind}, {"prev", hash_}, {"record", record}, {"seq", seq_ + 1}, {"time", time}};
    std::string body = dump_json(entry);
    if (body.size() + kBodyAt + 2 > kMaxLineBytes) {
        entry["record"] = {{"oversized", body.size()}};
        body = dump_json(entry);
    }
    const std::string hash = sha256_hex(body);
    std::string line;
    line.reserve(kBodyAt + body.size() + 2);
    line.append(kPrefix).append(hash).append(kMiddle).append(body).append("}\n");
    if (auto written = write_all(fd_, line); !written) return written;
    size_ += line.size();
    ++seq_;
    hash_ = hash;
    // The head after the line: a cut tail leaves the head naming an entry that is no longer there.
    const std::string head = dump_json({{"hash", hash_}, {"segment", segment_}, {"seq", seq_}}) + "\n";
    const std::string tmp = dir_ + "/head.tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return fail(sys_error("cannot write " + tmp));
    const Status wrote = write_all(fd, head);
    ::close(fd);
    if (!wrote) return wrote;
    if (::rename(tmp.c_str(), (dir_ + "/head").c_str()) != 0) return fail(sys_error("cannot replace the audit head"));
    return ok();
}

Status Writer::append(const std::string &kind, const nlohmann::json &record, double time) {
    if (fd_ < 0) return fail("the audit trail is not open");
    if (size_ > 0 && size_ + dump_json(record).size() + 256 > limits_.max_file_bytes) {
        if (auto begun = begin_segment(segment_ + 1); !begun) return begun;
        // Past keep_files: the oldest go, and the chain says so before anything else is written.
        std::vector<unsigned> segments = segments_of(dir_);
        if (segments.size() > limits_.keep_files) {
            const unsigned through = segments[segments.size() - limits_.keep_files - 1];
            const std::optional<Entry> last = last_entry_of(dir_ + "/" + segment_name(through));
            for (unsigned s : segments)
                if (s <= through) ::unlink((dir_ + "/" + segment_name(s)).c_str());
            nlohmann::json declared = {{"dropped_through_segment", through},
                                       {"last_seq", last ? last->seq : 0},
                                       {"last_hash", last ? last->hash : std::string(kGenesisHash)},
                                       {"reason", "rotation: audit.keep_files segments are kept"}};
            if (auto wrote = write_line("rotation", declared, time); !wrote) return wrote;
        }
    }
    return write_line(kind, record, time);
}

Result<std::vector<Entry>> read_entries(const std::string &dir) {
    const std::vector<unsigned> segments = segments_of(dir);
    if (segments.empty()) return fail("no audit trail in " + dir);
    std::vector<Entry> out;
    std::string error;
    for (unsigned s : segments) {
        const std::string text = read_whole(dir + "/" + segment_name(s));
        for_each_line(text, [&](std::string_view line, size_t n) {
            auto e = parse_line(line, false);
            if (!e) {
                error = segment_name(s) + " line " + std::to_string(n) + ": " + e.error().message;
                return false;
            }
            e.value().segment = s;
            e.value().line = n;
            out.push_back(std::move(e).value());
            return true;
        });
        if (!error.empty()) return fail(error);
    }
    return out;
}

namespace {

// `look_again`: the answer may come from reading while a live writer appended (see verify).
Result<Summary> verify_once(const std::string &dir, bool &look_again) {
    look_again = false;
    const std::vector<unsigned> segments = segments_of(dir);
    if (segments.empty()) return fail("no audit trail in " + dir + " (no segment file)");
    for (size_t i = 1; i < segments.size(); ++i)
        if (segments[i] != segments[i - 1] + 1)
            return fail("segment " + segment_name(segments[i - 1] + 1) + " is missing (between " + segment_name(segments[i - 1]) +
                        " and " + segment_name(segments[i]) + ")");
    Summary sum;
    sum.first_segment = segments.front();
    sum.last_segment = segments.back();
    std::string prev_hash;
    uint64_t prev_seq = 0;
    bool first = true;
    std::optional<Entry> first_entry;
    std::optional<nlohmann::json> dropped;  // the rotation entry declaring the segment before the first kept
    std::string error;
    for (unsigned s : segments) {
        const std::string text = read_whole(dir + "/" + segment_name(s));
        const bool whole = for_each_line(text, [&](std::string_view line, size_t n) {
            auto parsed = parse_line(line, true);
            const std::string where = segment_name(s) + " line " + std::to_string(n);
            if (!parsed) {
                error = where + ": " + parsed.error().message;
                return false;
            }
            Entry &e = parsed.value();
            const std::string at = where + " (seq " + std::to_string(e.seq) + ")";
            if (first) {
                first_entry = e;
                sum.first_seq = e.seq;
            } else if (e.seq != prev_seq + 1) {
                error = at + ": seq " + std::to_string(e.seq) + " follows " + std::to_string(prev_seq) + " (an entry was removed, moved or added)";
                return false;
            } else if (e.prev != prev_hash) {
                error = at + ": does not chain to the entry before it (an entry was removed, moved, added or changed)";
                return false;
            }
            if (e.kind == "rotation" && e.record.is_object() && e.record.value("dropped_through_segment", 0u) + 1 == segments.front())
                dropped = e.record;
            first = false;
            prev_hash = e.hash;
            prev_seq = e.seq;
            ++sum.entries;
            return true;
        });
        if (!error.empty()) return fail(error);
        if (!whole) return fail(segment_name(s) + " ends in a partial line (the file was cut)");
    }
    if (!first_entry) return fail("the audit trail holds no entry");
    // The start: the chain's own, or a declared rotation that dropped what came before.
    if (segments.front() == 1) {
        if (first_entry->seq != 1 || first_entry->prev != kGenesisHash)
            return fail(segment_name(1) + " line 1: the chain does not start here (seq " + std::to_string(first_entry->seq) +
                        "): its beginning was removed");
    } else {
        if (!dropped)
            return fail("segments before " + segment_name(segments.front()) + " are missing and no rotation entry declares them dropped");
        if (dropped->value("last_hash", "") != first_entry->prev || dropped->value("last_seq", uint64_t{0}) + 1 != first_entry->seq)
            return fail(segment_name(segments.front()) + " line 1: does not chain to the last dropped entry the rotation declared");
        sum.dropped_through_seq = first_entry->seq - 1;
    }
    sum.last_seq = prev_seq;
    sum.last_hash = prev_hash;
    // The end: the head names the last entry, so a cut tail is a break too.
    const auto head = read_json_object_file(dir + "/head");
    if (!head) return fail("the head file is missing or unreadable: the end of the chain cannot be confirmed");
    const uint64_t head_seq = head->value("seq", uint64_t{0});
    if (head_seq > prev_seq) {
        // Or a line and its head were written between reading the segments and reading the head.
        look_again = true;
        return fail("the chain ends at seq " + std::to_string(prev_seq) + " but the head names seq " + std::to_string(head_seq) +
                    ": entries were cut from the end");
    }
    if (head_seq < prev_seq) {
        look_again = true;
        return fail("seq " + std::to_string(head_seq + 1) + " and after are past the head (seq " + std::to_string(head_seq) +
                    "): added after the writer's last entry, or the writer stopped between a line and its head");
    }
    if (head->value("hash", "") != prev_hash) return fail("the last entry (seq " + std::to_string(prev_seq) + ") is not the one the head names");
    return sum;
}

}  // namespace

Result<Summary> verify(const std::string &dir) {
    // A live writer appends a line, then replaces the head: entries past the head, and a head past the
    // entries read a moment before (a line and its head written between the two reads), are looked at
    // again (three times, 50 ms apart) before they count as a break. A real cut or addition stays one.
    bool look_again = false;
    Result<Summary> r = verify_once(dir, look_again);
    for (int i = 0; i < 3 && look_again; ++i) {
        ::usleep(50'000);
        r = verify_once(dir, look_again);
    }
    return r;
}

Follower::Follower(std::string dir, uint64_t after_seq) : dir_(std::move(dir)), after_seq_(after_seq) {}

Result<size_t> Follower::poll(const std::function<void(const Entry &)> &on_entry) {
    const std::vector<unsigned> segments = segments_of(dir_);
    if (segments.empty()) return size_t{0};
    // Rotated away under us (or the first call): on at the oldest kept segment, skipping what was seen.
    if (segment_ == 0 || !std::binary_search(segments.begin(), segments.end(), segment_)) {
        const auto later = std::lower_bound(segments.begin(), segments.end(), segment_);
        segment_ = later == segments.end() ? segments.front() : *later;
        offset_ = 0;
        line_ = 0;
    }
    size_t handed = 0;
    for (size_t hops = 0; hops <= segments.size(); ++hops) {
        const std::string text = read_whole(dir_ + "/" + segment_name(segment_));
        while (offset_ < text.size()) {
            const size_t end = text.find('\n', offset_);
            if (end == std::string::npos) break;  // a line being written: next time
            auto e = parse_line(std::string_view(text).substr(offset_, end - offset_), false);
            ++line_;
            if (!e) return fail(segment_name(segment_) + " line " + std::to_string(line_) + ": " + e.error().message);
            offset_ = end + 1;
            if (e.value().seq <= after_seq_) continue;
            e.value().segment = segment_;
            e.value().line = line_;
            after_seq_ = e.value().seq;
            on_entry(e.value());
            ++handed;
        }
        const auto next = std::upper_bound(segments.begin(), segments.end(), segment_);
        if (next == segments.end() || offset_ < text.size()) break;
        segment_ = *next;
        offset_ = 0;
        line_ = 0;
    }
    return handed;
}

}  // namespace actionhost::common::audit
