// Who the shells run as, and with which environment (decided once, before any fork).
//
// OpenHands runs its shell as `su <user> -` after runtime_init created the user. The host
// creates the user; here, when the host runs as root and --username names another existing user, the
// shells switch to it (groups, gid, uid) with a login-like environment (HOME, USER, LOGNAME, SHELL,
// a clean PATH) and read the login profile. Otherwise they run as the host's own user with the host's
// environment, minus what must not leak into the sandbox's shell (SESSION_API_KEY).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace actionhost::common {

struct ShellIdentity {
    bool switch_user = false;  // true: setgroups/setgid/setuid to the fields below in the child
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
    std::string username;
    std::string home;
    bool login_profile = false;     // read /etc/profile and the user's profile instead of ~/.bashrc only
    std::string login_shell;        // the user's shell in the passwd database ("" when none is set)
    std::vector<std::string> env;   // KEY=VALUE for the shell
    std::string note;               // why the identity is what it is (logged once)
};

// `username`: --username (may be empty). Reads passwd/group databases and the current environment.
ShellIdentity resolve_shell_identity(const std::string &username);

// Whose search find_on_path makes: a shell's, from its working directory and as its user.
struct PathSearch {
    // Where relative entries of the list ("", ".", "bin") are, as the searching shell's working directory;
    // "" for this process's. A found program keeps the entry's spelling ("./python"), as a shell reports it.
    std::string relative_to;
    // Judge as this user: execute bits for its uid, gid and groups, and every directory above the program
    // searchable by it, so that a host running as root reports nothing the shell's user could not run or
    // even see. nullptr, or an identity that does not switch users: as this process (access(2)).
    const ShellIdentity *as = nullptr;
};

// The first regular file called `name` on `path_list` (":"-separated; an empty entry is ".") that `how`'s
// user may execute, or "". Stats only; any thread.
std::string find_on_path(const std::string &name, const std::string &path_list, const PathSearch &how = {});

// find_on_path on the absolute entries of this process's PATH, or of `fallback` when PATH is unset or
// has none (a daemon's bare environment). Relative entries ("", ".") are skipped: a program we run for
// ourselves is never taken from whatever directory we happen to be in (Go's exec.LookPath refuses those
// too). The one look-up of a program the machine provides; any thread.
std::string find_program(const std::string &name, const std::string &fallback = "/usr/local/bin:/usr/bin:/bin");

}  // namespace actionhost::common
