// Reading and writing the client machine's files for copies to and from a sandbox without ever being
// led elsewhere by a symbolic link, held up by a special file, or made to hold a file in memory. The
// trees copied are usually the workspace itself, where the agent may have planted links (to /etc/shadow,
// to /etc/cron.d) or FIFOs for a client that often runs as root.
//
// The path named on the command line: links on the way are followed only when they are root's or the
// caller's (common/trusted_path.hpp) and a named directory is never itself a link (refused: in a
// workspace the agent may have planted it).
//
// Reading: a file or a directory's tree is read through its descriptor with openat2(RESOLVE_BENEATH). A
// symbolic link in a tree is copied as a link (its target text, never followed) when it stays inside the
// tree — by its text (common/archive link_stays_inside) and resolved beneath the tree's root — and is
// skipped with a note when it leads out (absolute targets included). FIFOs, sockets and devices are never
// opened for reading: they are skipped, with a note. A file named alone may be a link staying within its
// directory: its content is copied. Writing: every directory
// of a path is entered with O_NOFOLLOW and files are created or truncated with O_NOFOLLOW, so an existing
// link anywhere on the way refuses the copy, as does a file with other hard links; a FIFO, socket or
// device at the name is skipped with a note, never opened. Links are created last (make_local_link), so
// no file of a copy is written through one of the copy's own links. Runs of zeros are written as holes, so a
// sparse file costs its real size on disk, not its logical one.
//
// Threads: any; nothing is shared.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::client::detail {

struct LocalEntry {
    std::string name;  // relative to the scanned directory, '/'-separated
    bool directory = false;
    bool link = false;     // a symbolic link staying inside the tree; `target` is its text
    std::string target;
    uint32_t mode = 0;     // permission bits (st_mode & 07777), directories and links
    int64_t mtime = 0;     // seconds since the epoch, directories and links
};

struct LocalTree {
    common::io::UniqueFd root;          // the scanned directory
    std::string path;                   // its name, for messages
    std::vector<LocalEntry> entries;    // directories, regular files and links that stay inside the tree
    std::vector<std::string> skipped;   // "PATH: why" for what is not copied
};

// The directories and regular files below `dir`. Throws WireError naming a link that leads out of `dir`
// or an entry that cannot be read; nothing has been read then.
LocalTree scan_local_tree(const std::string &dir);
// Opens entry `name` of `tree` for reading (beneath its root, non-blocking, regular files only). Throws
// WireError.
common::io::UniqueFd open_local_entry(const LocalTree &tree, const std::string &name);
// Opens the file `file` for reading: a link is followed only if it stays within the file's directory;
// `skipped` is set (and an empty descriptor returned) for a FIFO, socket or device.
common::io::UniqueFd open_local_file(const std::string &file, std::string &skipped);

// Opens `relative` below `root` (created with its parents; the root itself reached as a named path,
// above) for writing: created 0644 or truncated. Returns an empty descriptor and sets `skipped`
// when something other than a regular file is at that name. Throws WireError without writing through any
// link.
common::io::UniqueFd open_local_file_for_writing(const std::string &root, const std::string &relative, std::string &skipped);
// Writes `piece` at the file's position; a piece of zeros only moves the position (a hole). Throws
// WireError naming `shown`.
void write_piece(int fd, std::string_view piece, const std::string &shown);
// Ends a file written with write_piece at `size` bytes (a hole at its end included).
void finish_file(int fd, uint64_t size, const std::string &shown);
// Removes the regular file `relative` below `root` (one this copy wrote), reached the same way — never
// by its name from the root, so a directory swapped for a link since cannot make it remove a file of
// elsewhere. Best effort: what is no longer there, or no longer a regular file, stays.
void remove_local_file(const std::string &root, const std::string &relative) noexcept;
// Creates the directory `relative` below `root` the same way.
void make_local_dir(const std::string &root, const std::string &relative);
// Sets the permission bits and/or the modification time of the directory `relative` below `root` (""
// is `root`), reached the same way (created when missing). Once a copy's contents are in place: a
// file created later would change the time, and a directory without write permission could not be
// filled. Throws WireError.
void set_local_dir_attributes(const std::string &root, const std::string &relative, const std::optional<uint32_t> &mode,
                              const std::optional<int64_t> &mtime);
// Creates the symbolic link `relative` -> `target` below `root` (its directories reached the same way),
// replacing a file or link at that name, with `mtime` when set. Returns false with `skipped` set when a
// directory or special file is at the name, or when the link, resolved beneath `root` through the links
// already there, would lead out of it (it is removed again). The caller checks the text first
// (link_stays_inside). Throws WireError.
bool make_local_link(const std::string &root, const std::string &relative, const std::string &target,
                     const std::optional<int64_t> &mtime, std::string &skipped);

// Once every link of a copy is made: the link at `relative` resolved beneath `root` again — a link made
// earlier may lead out through one made after it (`a -> d/b/..`, then `d/b -> ../..`). One that leads out
// now is removed; returns false with `skipped` set then. Throws WireError.
bool keep_local_link_if_inside(const std::string &root, const std::string &relative, std::string &skipped);

}  // namespace actionhost::client::detail
