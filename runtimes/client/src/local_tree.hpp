// Reading and writing the client machine's files for copies to and from a sandbox without ever being
// led elsewhere by a symbolic link. The trees copied are usually the workspace itself, where the agent
// may have planted links (to /etc/shadow, to /etc/cron.d) for a client that often runs as root.
//
// Reading: a file or a directory's tree is read through its descriptor with openat2(RESOLVE_BENEATH):
// a link that stays inside the tree is followed (its target's content is sent under the link's name), a
// link that leads out of it refuses the whole copy (nothing is sent). Writing: every directory of a
// path is entered with O_NOFOLLOW and files are created or truncated with O_NOFOLLOW, so an existing
// link anywhere on the way refuses the copy, as does a file with other hard links.
#pragma once

#include <string>
#include <vector>

namespace actionhost::client::detail {

struct LocalFile {
    std::string name;     // relative to the copied directory, '/'-separated ("" for a single file)
    std::string content;
    bool directory = false;
};

// The files (and directories) of `dir`, names relative to it. Throws WireError naming a link that leads
// out of `dir` or an entry that cannot be read.
std::vector<LocalFile> read_local_tree(const std::string &dir);
// The content of `file`; a link is followed only if it stays within the file's directory.
std::string read_local_file(const std::string &file);
// Writes `content` at `relative` below `root` (created with its parents; the root itself may be
// reached through links the user named). Throws WireError without writing through any link.
void write_local_file(const std::string &root, const std::string &relative, const std::string &content);
// Creates the directory `relative` below `root` the same way.
void make_local_dir(const std::string &root, const std::string &relative);

}  // namespace actionhost::client::detail
