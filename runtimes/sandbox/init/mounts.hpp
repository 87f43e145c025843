// The sandbox's filesystem: a fresh root whose every directory is the caller's, read-only; the
// workspace read-write; private /tmp, /run, /dev (a few devices + a new devpts) and home; a new /proc.
// Runs inside the new user+mount namespace, as pid 1 of the new pid namespace.
#pragma once

#include "options.hpp"

namespace sandbox {

// Assembles the root on o.root_mount and pivots into it. Throws std::runtime_error naming the step.
void build_root(const Options &o);

// Brings the loopback interface of a fresh network namespace up.
void loopback_up();

}  // namespace sandbox
