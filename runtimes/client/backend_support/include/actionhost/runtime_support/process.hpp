// Child processes for backends that start the host themselves (local, sandbox).
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

struct SpawnOptions {
    std::vector<std::string> argv;            // argv[0] is the executable path
    std::map<std::string, std::string> env;   // the complete environment
    std::string log_path;                     // stdout+stderr appended here ("" → /dev/null)
    std::string stdin_path;                   // the child's stdin ("" → /dev/null)
    std::string cwd;                          // "" → inherit
    bool die_with_parent = false;             // PR_SET_PDEATHSIG SIGKILL (not for kept-alive hosts)
    std::vector<int> keep_fds;                // inherited as is (others are close-on-exec by habit)
};

// Starts a child in a process group of its own. Throws std::runtime_error with the errno text.
pid_t spawn_process(const SpawnOptions &options);

// Reaps `pid` if it exited (our child). Returns its wait status, or nullopt when still running.
std::optional<int> try_reap(pid_t pid);
// True when a process `pid` exists (any parent).
bool process_exists(pid_t pid);
// SIGTERM to the process group `pgid`, then SIGKILL after `grace_s`; reaps `pid` when it is our child.
void stop_process_group(pid_t pgid, double grace_s);

// mkdtemp of <$TMPDIR or /tmp>/<prefix>XXXXXX. Throws std::runtime_error when it cannot.
std::string make_temp_dir(const std::string &prefix);

// The environment of this process, as a map.
std::map<std::string, std::string> process_environment();
// The last `max_bytes` of a file ("" when unreadable): for error messages quoting a log.
std::string file_tail(const std::string &path, size_t max_bytes = 2000);
// Waits until `path` holds a port number, the process `pid` died (→ throws with the log tail), or the
// time runs out (→ Timeout).
int wait_port_file(const std::string &path, pid_t pid, double timeout_s, const std::string &log_path);

// The login name of uid (or the uid as text).
std::string user_name(uid_t uid);

}  // namespace actionhost::runtime_support
