#include "sys/worker_spawn.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace actionhost::host {

common::Result<WorkerChannel> spawn_worker(const std::string &program, const std::string &mode) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return common::fail(std::string("socketpair: ") + std::strerror(errno), errno);
    common::io::UniqueFd ours(sv[0]), theirs(sv[1]);
    common::SpawnSpec spec;
    spec.program = program;
    spec.argv = {program, mode, "3"};
    spec.use_pty = false;
    spec.in = common::Stream::null();
    spec.out = common::Stream::inherit();
    spec.err = common::Stream::inherit();
    spec.mapped_fds = {{theirs.get(), 3}};
    // Its own process group, so the host's terminal signals (C-c at a console) reach the host, which
    // stops it in order, and not the worker behind its back.
    spec.new_session = false;
    spec.die_with_parent = true;
    auto child = common::ChildProcess::spawn(spec);
    if (!child) return common::fail("cannot start " + program + " " + mode + ": " + child.error().message);
    return WorkerChannel{std::move(child).value(), std::move(ours)};
}

}  // namespace actionhost::host
