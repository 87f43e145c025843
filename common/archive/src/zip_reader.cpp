#include "actionhost/common/archive/zip_reader.hpp"

#include <minizip/unzip.h>
#include <sys/stat.h>

#include <ctime>
#include <fstream>

namespace actionhost::common::archive {

namespace {

// Whether an entry name is safe to unpack below a directory, or why not.
Status safe_name(const std::string &name) {
    if (name.empty()) return fail("an entry has an empty name");
    if (name.find('\0') != std::string::npos) return fail("an entry name contains a NUL byte");
    if (name[0] == '/') return fail("entry '" + name + "' has an absolute path");
    size_t start = 0;
    while (start <= name.size()) {
        const size_t slash = name.find('/', start);
        const std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part == "..") return fail("entry '" + name + "' would be written outside the destination");
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return ok();
}

uint64_t little_endian(const std::string &bytes, size_t at, int width) {
    uint64_t v = 0;
    for (int b = width - 1; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(b)]);
    return v;
}

// The end of the file checked as every zip archive ends: an end-of-central-directory record ("PK\5\6",
// then at least 18 bytes) within its last 64 KiB + 22 bytes (the record and the longest comment), and,
// when a ZIP64 locator ("PK\6\7") precedes it, a ZIP64 end-of-central-directory record where the locator
// says, whose declared size fits the file (fuzz_zip once found a 95-byte upload declaring 1.5 GB making
// the previous library allocate that much).
Status check_end_records(const std::string &path, bool &empty) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return fail("cannot open the archive " + path);
    const std::streamoff size = in.tellg();
    const std::streamoff window = std::min<std::streamoff>(size, 65535 + 22 + 20);
    const std::string none = "not a valid zip archive: it has no end-of-central-directory record";
    if (window < 22) return fail(none);
    std::string tail(static_cast<size_t>(window), '\0');
    in.seekg(size - window);
    in.read(tail.data(), window);
    if (!in) return fail(none);
    const size_t at = tail.rfind(std::string("PK\x05\x06", 4));
    if (at == std::string::npos || tail.size() - at < 22) return fail(none);
    // Nothing but the record: an empty archive (minizip takes a record at offset 0 for none at all).
    empty = size == window && at == 0;
    if (at < 20 || tail.compare(at - 20, 4, std::string("PK\x06\x07", 4)) != 0) return ok();
    const uint64_t record = little_endian(tail, at - 20 + 8, 8);
    const uint64_t file_size = static_cast<uint64_t>(size);
    if (record > file_size || file_size - record < 56)
        return fail("not a valid zip archive: a ZIP64 end-of-central-directory record is placed past the end of the file");
    std::string head(12, '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(record));
    in.read(head.data(), 12);
    if (!in || head.compare(0, 4, std::string("PK\x06\x06", 4)) != 0)
        return fail("not a valid zip archive: a ZIP64 end-of-central-directory record is not where its locator says");
    const uint64_t declared = little_endian(head, 4, 8);
    if (declared > file_size - record - 12)
        return fail("not a valid zip archive: a ZIP64 end-of-central-directory record declares " + std::to_string(declared) +
                    " bytes, but only " + std::to_string(file_size - record - 12) + " follow it");
    return ok();
}

// The 0x5455 extended timestamp's modification time in a central directory extra field, if there.
std::optional<int64_t> extended_mtime(const std::string &extra) {
    for (size_t at = 0; at + 4 <= extra.size();) {
        const uint64_t id = little_endian(extra, at, 2), len = little_endian(extra, at + 2, 2);
        if (at + 4 + len > extra.size()) break;
        if (id == 0x5455 && len >= 5 && (static_cast<unsigned char>(extra[at + 4]) & 1))
            return static_cast<int64_t>(static_cast<int32_t>(little_endian(extra, at + 5, 4)));
        at += 4 + len;
    }
    return std::nullopt;
}

std::optional<int64_t> dos_mtime(const unz_file_info64 &info) {
    if (info.dosDate == 0) return std::nullopt;
    std::tm tm{};
    tm.tm_sec = static_cast<int>(info.tmu_date.tm_sec);
    tm.tm_min = static_cast<int>(info.tmu_date.tm_min);
    tm.tm_hour = static_cast<int>(info.tmu_date.tm_hour);
    tm.tm_mday = static_cast<int>(info.tmu_date.tm_mday);
    tm.tm_mon = static_cast<int>(info.tmu_date.tm_mon);
    tm.tm_year = static_cast<int>(info.tmu_date.tm_year) - 1900;
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return std::nullopt;
    return static_cast<int64_t>(t);
}

}  // namespace

bool link_stays_inside(std::string_view entry_name, std::string_view target) {
    if (target.empty() || target[0] == '/' || target.find('\0') != std::string_view::npos) return false;
    // The link's depth below the root: its name's directories.
    long depth = 0;
    std::string_view name = entry_name;
    while (!name.empty() && name.back() == '/') name.remove_suffix(1);
    for (size_t start = 0, slash; (slash = name.find('/', start)) != std::string_view::npos; start = slash + 1) {
        const std::string_view part = name.substr(start, slash - start);
        if (!part.empty() && part != ".") ++depth;
    }
    for (size_t start = 0; start <= target.size();) {
        size_t slash = target.find('/', start);
        if (slash == std::string_view::npos) slash = target.size();
        const std::string_view part = target.substr(start, slash - start);
        if (part == "..") {
            if (--depth < 0) return false;
        } else if (!part.empty() && part != ".") {
            ++depth;
        }
        start = slash + 1;
    }
    return true;
}

struct ZipReader::State {
    unzFile zip = nullptr;
    std::vector<unz64_file_pos> positions;  // in entries() order
    ZipLimits limits;
    uint64_t read_so_far = 0;
    ~State() {
        if (zip != nullptr) unzClose(zip);
    }
};

ZipReader::ZipReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
ZipReader::~ZipReader() = default;

Result<std::unique_ptr<ZipReader>> ZipReader::open(const std::string &path, const ZipLimits &limits) {
    bool empty = false;
    if (auto ends = check_end_records(path, empty); !ends) return ends.as_failure();
    auto state = std::make_unique<State>();
    state->limits = limits;
    if (empty) return std::unique_ptr<ZipReader>(new ZipReader(std::move(state)));
    state->zip = unzOpen64(path.c_str());
    if (state->zip == nullptr) return fail("not a valid zip archive: its central directory cannot be read");
    std::vector<ZipEntryInfo> entries;
    uint64_t declared = 0;
    for (int step = unzGoToFirstFile(state->zip); step != UNZ_END_OF_LIST_OF_FILE; step = unzGoToNextFile(state->zip)) {
        if (step != UNZ_OK) return fail("not a valid zip archive: its central directory is damaged");
        if (entries.size() >= limits.max_entries)
            return fail("the archive has more than " + std::to_string(limits.max_entries) + " entries");
        unz_file_info64 info{};
        if (unzGetCurrentFileInfo64(state->zip, &info, nullptr, 0, nullptr, 0, nullptr, 0) != UNZ_OK)
            return fail("not a valid zip archive: its central directory is damaged");
        std::string name(info.size_filename, '\0');
        std::string extra(info.size_file_extra, '\0');
        if (unzGetCurrentFileInfo64(state->zip, &info, name.data(), static_cast<uLong>(name.size()), extra.data(),
                                    static_cast<uLong>(extra.size()), nullptr, 0) != UNZ_OK)
            return fail("not a valid zip archive: its central directory is damaged");
        if (auto safe = safe_name(name); !safe) return safe.as_failure();
        if (info.flag & 1) return fail("entry '" + name + "' is encrypted");
        ZipEntryInfo entry;
        entry.name = name;
        const bool unix_made = (info.version >> 8) == 3;
        const uint32_t raw = unix_made ? static_cast<uint32_t>(info.external_fa >> 16) : 0;
        entry.raw_mode = raw;
        const bool dos_directory = !unix_made && (info.external_fa & 0x10) != 0;
        if (name.back() == '/' || dos_directory) {
            entry.kind = ZipEntryKind::directory;
        } else if (raw != 0) {
            switch (raw & S_IFMT) {
                case 0:
                case S_IFREG: entry.kind = ZipEntryKind::file; break;
                case S_IFDIR: entry.kind = ZipEntryKind::directory; break;
                case S_IFLNK: entry.kind = ZipEntryKind::symlink; break;
                default: entry.kind = ZipEntryKind::other; break;
            }
        }
        if (raw & 0777) entry.mode = raw & 0777;
        entry.mtime = extended_mtime(extra);
        if (!entry.mtime) entry.mtime = dos_mtime(info);
        entry.directory = entry.kind == ZipEntryKind::directory;
        entry.declared_size = entry.directory ? 0 : static_cast<uint64_t>(info.uncompressed_size);
        if (entry.kind == ZipEntryKind::symlink && entry.declared_size > kMaxLinkTarget)
            return fail("entry '" + name + "' is a symbolic link with a target of " + std::to_string(entry.declared_size) +
                        " bytes (at most " + std::to_string(kMaxLinkTarget) + ")");
        declared += entry.declared_size;
        if (declared > limits.max_total_bytes)
            return fail("the archive unpacks to more than " + std::to_string(limits.max_total_bytes) + " bytes");
        unz64_file_pos pos{};
        if (unzGetFilePos64(state->zip, &pos) != UNZ_OK) return fail("not a valid zip archive: its central directory is damaged");
        entries.push_back(std::move(entry));
        state->positions.push_back(pos);
    }
    auto reader = std::unique_ptr<ZipReader>(new ZipReader(std::move(state)));
    reader->entries_ = std::move(entries);
    return reader;
}

Status ZipReader::read(size_t index, const std::function<Status(std::string_view)> &sink) {
    if (index >= entries_.size()) return fail("no entry " + std::to_string(index));
    const ZipEntryInfo &entry = entries_[index];
    if (entry.directory) return ok();
    const std::string damaged = "entry '" + entry.name + "' cannot be read: the archive is damaged";
    if (unzGoToFilePos64(state_->zip, &state_->positions[index]) != UNZ_OK || unzOpenCurrentFile(state_->zip) != UNZ_OK)
        return fail(damaged);
    struct CloseEntry {
        unzFile zip;
        bool open = true;
        int close() {
            open = false;
            return unzCloseCurrentFile(zip);
        }
        ~CloseEntry() {
            if (open) unzCloseCurrentFile(zip);
        }
    } current{state_->zip};
    std::vector<char> buf(65536);
    uint64_t entry_bytes = 0;
    // Bounded: every round reads at least one byte of an entry minizip stops at its declared size.
    for (;;) {
        const int n = unzReadCurrentFile(state_->zip, buf.data(), static_cast<unsigned>(buf.size()));
        if (n < 0) return fail(damaged);
        if (n == 0) break;
        entry_bytes += static_cast<uint64_t>(n);
        state_->read_so_far += static_cast<uint64_t>(n);
        if (entry_bytes > entry.declared_size)
            return fail("entry '" + entry.name + "' unpacks to more than the " + std::to_string(entry.declared_size) +
                        " bytes its header says");
        if (state_->read_so_far > state_->limits.max_total_bytes)
            return fail("the archive unpacks to more than " + std::to_string(state_->limits.max_total_bytes) + " bytes");
        if (auto taken = sink(std::string_view(buf.data(), static_cast<size_t>(n))); !taken) return taken;
    }
    const int closed = current.close();
    if (closed == UNZ_CRCERROR)
        return fail("entry '" + entry.name + "' does not match its checksum: the archive is damaged, or its header lies about its size");
    if (closed != UNZ_OK) return fail(damaged);
    return ok();
}

Result<std::string> ZipReader::read_link(size_t index) {
    if (index >= entries_.size() || entries_[index].kind != ZipEntryKind::symlink) return fail("no link entry " + std::to_string(index));
    std::string target;
    auto read_all = read(index, [&](std::string_view piece) {
        target.append(piece);
        return ok();
    });
    if (!read_all) return read_all.as_failure();
    const std::string &name = entries_[index].name;
    if (target.empty()) return fail("entry '" + name + "' is a symbolic link without a target");
    if (target.find('\0') != std::string::npos) return fail("entry '" + name + "' is a symbolic link whose target contains a NUL byte");
    return target;
}

}  // namespace actionhost::common::archive
