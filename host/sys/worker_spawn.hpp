// Starting one of the host's helper processes (`actionhost --policy-worker 3`, `actionhost
// --plugin-worker 3`): this same executable, with one end of a socketpair as its fd 3, through the one
// subprocess layer (common/process), so it inherits nothing else of the host — not its listening sockets,
// not the audit trail's descriptor — and is killed with the host (PR_SET_PDEATHSIG).
#pragma once

#include <memory>
#include <string>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/result.hpp>

namespace actionhost::host {

struct WorkerChannel {
    std::unique_ptr<common::ChildProcess> child;
    common::io::UniqueFd fd;  // our end of the socketpair (close-on-exec)
};

// Runs `program mode 3`; the worker's stdout and stderr are the host's (a module that prints still
// reaches the host's log). The error names the program and the reason.
common::Result<WorkerChannel> spawn_worker(const std::string &program, const std::string &mode);

}  // namespace actionhost::host
