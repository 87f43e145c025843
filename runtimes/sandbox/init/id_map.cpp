#include "id_map.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace sandbox {

namespace {

// "inside outside count" lines covering 0..kIdRangeSize-1 inside with base+i outside, except `kept`
// inside, which is `kept_outside`.
std::string range_with_one_kept(unsigned long base, unsigned long kept, unsigned long kept_outside) {
    auto line = [](unsigned long in, unsigned long out, unsigned long n) {
        return std::to_string(in) + " " + std::to_string(out) + " " + std::to_string(n) + "\n";
    };
    if (kept_outside == base + kept) return line(0, base, kIdRangeSize);
    std::string text;
    if (kept > 0) text += line(0, base, kept);
    text += line(kept, kept_outside, 1);
    if (kept + 1 < kIdRangeSize) text += line(kept + 1, base + kept + 1, kIdRangeSize - kept - 1);
    return text;
}

}  // namespace

IdMaps compute_id_maps(const IdRequest &r) {
    IdMaps m;
    if (r.caller_uid != 0) {
        // One id each: the caller's, as the sandbox's user.
        m.uid_map = std::to_string(r.inside_uid) + " " + std::to_string(r.caller_uid) + " 1\n";
        m.gid_map = std::to_string(r.inside_gid) + " " + std::to_string(r.caller_gid) + " 1\n";
        m.deny_setgroups = true;
        m.outside_uid = r.caller_uid;
        m.outside_gid = r.caller_gid;
        return m;
    }
    if (r.inside_uid >= kIdRangeSize || r.inside_gid >= kIdRangeSize)
        throw std::invalid_argument("the sandbox's user and group ids must be below " + std::to_string(kIdRangeSize));
    if (r.owner_uid == 0 || r.owner_gid == 0)
        throw std::invalid_argument("the workspace belongs to root on the machine: hand it over first");
    auto in_range = [](unsigned long id, unsigned long base) { return id >= base && id < base + kIdRangeSize; };
    if ((in_range(r.owner_uid, r.uid_base) && r.owner_uid != r.uid_base + r.inside_uid) ||
        (in_range(r.owner_gid, r.gid_base) && r.owner_gid != r.gid_base + r.inside_gid))
        throw std::invalid_argument("the workspace belongs to another id of the sandbox range: hand it over first");
    if (r.uid_base == 0 || r.gid_base == 0) throw std::invalid_argument("an id range must not start at 0");
    m.uid_map = range_with_one_kept(r.uid_base, r.inside_uid, r.owner_uid);
    m.gid_map = range_with_one_kept(r.gid_base, r.inside_gid, r.owner_gid);
    m.outside_uid = r.owner_uid;
    m.outside_gid = r.owner_gid;
    return m;
}

std::string mount_id_map(unsigned long disk_id, unsigned long kernel_id, unsigned long base) {
    auto line = [](unsigned long disk, unsigned long kernel, unsigned long n) {
        return std::to_string(disk) + " " + std::to_string(kernel) + " " + std::to_string(n) + "\n";
    };
    const unsigned long end = base + kIdRangeSize;
    if (kernel_id < base || kernel_id >= end) throw std::invalid_argument("the sandbox's user is not an id of its range");
    if (disk_id == kernel_id) return line(base, base, kIdRangeSize);
    const bool disk_in_range = disk_id >= base && disk_id < end;
    // The range as itself, but for the two ids that trade places (or the one taken by the owner).
    std::string text;
    unsigned long from = base;
    for (const unsigned long hole : {std::min(disk_in_range ? disk_id : kernel_id, kernel_id), std::max(disk_in_range ? disk_id : kernel_id, kernel_id)}) {
        if (hole > from) text += line(from, from, hole - from);
        from = std::max(from, hole + 1);
    }
    if (from < end) text += line(from, from, end - from);
    text += line(disk_id, kernel_id, 1);
    if (disk_in_range) text += line(kernel_id, disk_id, 1);
    return text;
}

unsigned long subordinate_base(const std::string &file, const std::string &name, unsigned long fallback) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find(':');
        const auto b = line.find(':', a == std::string::npos ? a : a + 1);
        if (a == std::string::npos || b == std::string::npos || line.substr(0, a) != name) continue;
        try {
            size_t used = 0;
            const unsigned long base = std::stoul(line.substr(a + 1, b - a - 1), &used);
            const unsigned long count = std::stoul(line.substr(b + 1));
            if (base > 0 && count >= kIdRangeSize && base + kIdRangeSize <= 0xFFFFFFFFul) return base;
        } catch (const std::exception &) {
        }
    }
    return fallback;
}

}  // namespace sandbox
