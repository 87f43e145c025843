// Child processes for backends that start the host themselves (local, sandbox).
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

struct SpawnOptions {
    std::vector<std::string> argv;            // argv[0]: the executable's path (a bare name: on env's PATH)
    std::map<std::string, std::string> env;   // the complete environment
    std::string log_path;                     // stdout+stderr appended here ("" → /dev/null)
    std::string stdin_path;                   // the child's stdin ("" → /dev/null)
    std::string cwd;                          // "" → inherit
    bool die_with_parent = false;             // PR_SET_PDEATHSIG SIGKILL (not for kept-alive hosts)
    std::vector<int> keep_fds;                // inherited as is (no other descriptor of ours is)
};

// Starts a child in a process group of its own (common::ChildProcess) and hands its pid to the caller,
// who reaps or stops it. Throws std::runtime_error with the reason.
pid_t spawn_process(const SpawnOptions &options);
// Call before constructing an object of static storage whose threads call spawn_process with
// die_with_parent (the local backend's warm pool), so the thread that forks those children is
// destroyed after that object at exit (common::ChildProcess::start_lasting_spawner says why).
void start_lasting_spawner();

// Reaps `pid` if it exited (our child). Returns its wait status, or nullopt when still running.
std::optional<int> try_reap(pid_t pid);
// True when a process `pid` runs (any parent). A zombie has ended: it only waits for its parent (which,
// for a host whose client exited, is whatever reaps orphans on this machine, and may take its time).
bool process_exists(pid_t pid);
// Waits until `pid` has ended (a zombie counts) or `timeout_s` passed; true when it ended. Woken by a
// pidfd at the moment of the exit: no polling interval is added to a teardown.
bool wait_for_exit(pid_t pid, double timeout_s);
// SIGTERM (and SIGCONT, so a stopped process can act on it) to the process group `pgid`, SIGKILL after
// `grace_s`; reaps `pgid` when it is our child.
void stop_process_group(pid_t pgid, double grace_s);

// One process for good: its pid, when it started and in which boot. A record holding this never takes
// a recycled pid, or a pid of an earlier boot, for its process.
struct ProcessIdentity {
    pid_t pid = 0;
    unsigned long long start_ticks = 0;  // /proc/<pid>/stat starttime
    std::string boot_id;                 // /proc/sys/kernel/random/boot_id
};
// Nullopt when `pid` does not run.
std::optional<ProcessIdentity> identify_process(pid_t pid);
// True when that very process still runs.
bool is_running(const ProcessIdentity &id);
const std::string &current_boot_id();
// Sends `sig` (then SIGCONT, so a stopped process acts on it) to the process `id` names — never to
// another that got its pid — and waits up to `timeout_s` for it to end. True when it ended or was gone.
bool signal_and_wait(const ProcessIdentity &id, int sig, double timeout_s);

// $TMPDIR, or /tmp when it is unset or empty.
std::string temp_root();
// mkdtemp of <temp_root()>/<prefix>XXXXXX. Throws std::runtime_error when it cannot.
std::string make_temp_dir(const std::string &prefix);

// A make_temp_dir directory removed with everything in it when the object ends (scratch space for one
// call: a credential helper's input, a build context being packed).
class ScopedTempDir {
  public:
    explicit ScopedTempDir(const std::string &prefix) : path_(make_temp_dir(prefix)) {}
    ~ScopedTempDir();
    ScopedTempDir(const ScopedTempDir &) = delete;
    ScopedTempDir &operator=(const ScopedTempDir &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

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
