// What it costs this machine to wake a sleeping thread: the figure that decides how far any server
// between a client and a shell can come to a floor of two processes handing off on one CPU.
//
// On a virtual machine whose idle CPUs halt at once (Firecracker with haltpoll.guest_halt_poll_ns=0,
// for one), a thread woken on an idle CPU waits for that CPU to come back from the hypervisor: tens of
// microseconds, against one or two on a CPU that polls before it halts. A round trip through a server
// and a terminal crosses CPUs several times (docs/performance.md, "A round trip").
#pragma once

#include <optional>

namespace actionhost::bench {

struct WakeCost {
    // Median time from a write into a pipe to the reader returning with it, in ms: the writer and the
    // reader pinned to one CPU (the reader's CPU busy with the writer), or to two (the reader's idle).
    double same_cpu_ms = 0, other_cpu_ms = 0;
    bool measured = false;  // false when the machine has a single usable CPU or pinning failed
};

// Measures `n` ping-pongs each way between two threads of this process. Blocks for about n x 0.1 ms.
// Thread: any; pins only the two threads it starts, which end before it returns.
WakeCost measure_wake_cost(int n);

// The guest's halt-polling window in ns (/sys/module/haltpoll/parameters/guest_halt_poll_ns), when the
// kernel has the haltpoll cpuidle driver; 0 means an idle CPU halts without polling.
std::optional<long> guest_halt_poll_ns();

}  // namespace actionhost::bench
