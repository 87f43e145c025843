#include "actionhost/common/archive/zip_reader.hpp"

#include <Poco/Zip/ZipArchive.h>
#include <Poco/Zip/ZipStream.h>

#include <fstream>

#include "zip64_record_guard.hpp"

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

// Whether the file ends as every zip archive ends: an end-of-central-directory record ("PK\5\6", then at
// least 18 bytes) within its last 64 KiB + 22 bytes (the record and the longest comment). Poco's walk
// takes bytes that hold no entry for an empty archive; an archive must at least say it is one.
bool has_end_record(const std::string &path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return false;
    const std::streamoff size = in.tellg();
    const std::streamoff window = std::min<std::streamoff>(size, 65535 + 22);
    if (window < 22) return false;
    std::string tail(static_cast<size_t>(window), '\0');
    in.seekg(size - window);
    in.read(tail.data(), window);
    if (!in) return false;
    const size_t at = tail.rfind(std::string("PK\x05\x06", 4));
    return at != std::string::npos && tail.size() - at >= 22;
}

}  // namespace

struct ZipReader::State {
    std::ifstream in;
    std::unique_ptr<Poco::Zip::ZipArchive> archive;
    std::vector<const Poco::Zip::ZipLocalFileHeader *> headers;  // in entries() order
    ZipLimits limits;
    uint64_t read_so_far = 0;
};

ZipReader::ZipReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
ZipReader::~ZipReader() = default;

Result<std::unique_ptr<ZipReader>> ZipReader::open(const std::string &path, const ZipLimits &limits) {
    auto state = std::make_unique<State>();
    state->limits = limits;
    state->in.open(path, std::ios::binary);
    Zip64RecordGuard guard(path);
    if (!state->in || !guard.is_open()) return fail("cannot open the archive " + path);
    try {
        std::istream guarded(&guard);  // the header walk only: see zip64_record_guard.hpp
        state->archive = std::make_unique<Poco::Zip::ZipArchive>(guarded);
    } catch (const std::exception &e) {
        return fail("not a valid zip archive: " + (guard.refused().empty() ? std::string(e.what()) : guard.refused()));
    }
    if (!guard.refused().empty()) return fail("not a valid zip archive: " + guard.refused());
    if (!has_end_record(path)) return fail("not a valid zip archive: it has no end-of-central-directory record");
    std::vector<ZipEntryInfo> entries;
    uint64_t declared = 0;
    for (auto it = state->archive->headerBegin(); it != state->archive->headerEnd(); ++it) {
        const Poco::Zip::ZipLocalFileHeader &h = it->second;
        if (entries.size() >= limits.max_entries)
            return fail("the archive has more than " + std::to_string(limits.max_entries) + " entries");
        if (auto safe = safe_name(h.getFileName()); !safe) return safe.as_failure();
        if (h.isEncrypted()) return fail("entry '" + h.getFileName() + "' is encrypted");
        const bool directory = h.isDirectory() || h.getFileName().back() == '/';
        const uint64_t size = directory ? 0 : static_cast<uint64_t>(h.getUncompressedSize());
        declared += size;
        if (declared > limits.max_total_bytes)
            return fail("the archive unpacks to more than " + std::to_string(limits.max_total_bytes) + " bytes");
        entries.push_back({h.getFileName(), directory, size});
        state->headers.push_back(&h);
    }
    auto reader = std::unique_ptr<ZipReader>(new ZipReader(std::move(state)));
    reader->entries_ = std::move(entries);
    return reader;
}

Status ZipReader::read(size_t index, const std::function<Status(std::string_view)> &sink) {
    if (index >= entries_.size()) return fail("no entry " + std::to_string(index));
    const ZipEntryInfo &entry = entries_[index];
    if (entry.directory) return ok();
    try {
        state_->in.clear();
        Poco::Zip::ZipInputStream zis(state_->in, *state_->headers[index], true);
        std::vector<char> buf(65536);
        uint64_t entry_bytes = 0;
        while (zis) {
            zis.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            const auto n = static_cast<uint64_t>(zis.gcount());
            if (n == 0) break;
            entry_bytes += n;
            state_->read_so_far += n;
            if (entry_bytes > entry.declared_size)
                return fail("entry '" + entry.name + "' unpacks to more than the " + std::to_string(entry.declared_size) +
                            " bytes its header says");
            if (state_->read_so_far > state_->limits.max_total_bytes)
                return fail("the archive unpacks to more than " + std::to_string(state_->limits.max_total_bytes) + " bytes");
            if (auto taken = sink(std::string_view(buf.data(), static_cast<size_t>(n))); !taken) return taken;
        }
        if (zis.bad()) return fail("entry '" + entry.name + "' cannot be read: the archive is damaged");
    } catch (const std::exception &e) {
        return fail("entry '" + entry.name + "' cannot be read: " + e.what());
    }
    return ok();
}

}  // namespace actionhost::common::archive
