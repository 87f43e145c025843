// What the scale tests share: ahctl run with a private TMPDIR (where the sandboxes' run directories
// go) and state directory, in the foreground or in the background, and the list of whatever the
// sandboxes of this test left on the machine.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace scale_test {

struct Ahctl {
    int code = -1;
    std::string out, err;
    double seconds = 0;
};

class Fleet {
  public:
    Fleet();
    // `ahctl -q -r sandbox --state-dir <state> <args>` (args: separate words), waited for.
    Ahctl ahctl(const std::vector<std::string> &args, double timeout_s = 120) const;
    // The same in the background, with the default disposition of every signal: its pid. `out`
    // receives its stdout.
    pid_t ahctl_in_background(const std::vector<std::string> &args, const std::string &out) const;
    // Whatever this test's sandboxes left: run directories, state records and start markers, cgroups
    // of the given sessions, processes and mounts naming the private TMPDIR. "" when nothing.
    std::string leftovers(const std::vector<std::string> &session_ids) const;

    const std::string &tmp() const { return tmp_.path(); }
    const std::string &state() const { return state_.path(); }

  private:
    std::vector<std::string> command(const std::vector<std::string> &args) const;
    actionhost::testing::TempDir tmp_, state_;
};

// ah-sandbox-init of a kept-alive session (from its backend record) and its child, pid 1 of the sandbox.
pid_t init_of(const Fleet &fleet, const std::string &session_id);
pid_t pid1_of(pid_t init);
// Session ids, one a line.
std::vector<std::string> lines_of(const std::string &text);

}  // namespace scale_test
