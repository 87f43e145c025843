#include "supervisor.hpp"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "output_relay.hpp"

namespace sandbox {

int supervise(const Supervision &s, OutputRelay &relay) {
    int control = s.control_fd;
    bool ended = false;
    auto end_once = [&] {
        if (ended) return;
        ended = true;
        if (s.end_sandbox) s.end_sandbox();
    };
    for (int rounds = 0; rounds < 100'000'000; ++rounds) {
        pollfd fds[4] = {{s.child_pidfd, POLLIN, 0}, {relay.fd(), POLLIN, 0}, {control, POLLIN, 0}, {s.signal_fd, POLLIN, 0}};
        if (::poll(fds, 4, s.child_pidfd >= 0 ? -1 : 100) < 0 && errno != EINTR) break;
        if (fds[3].revents & POLLIN) {
            signalfd_siginfo info;
            while (::read(s.signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
            }
            end_once();
        }
        if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) {
            char byte = 0;
            const ssize_t n = ::read(control, &byte, 1);
            if (n == 1 && byte == kDetach) {
                // Recorded as kept alive: from now on the sandbox outlives whoever started it.
                (void)!::write(control, &byte, 1);
                ::close(control);
                control = -1;
            } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                ::close(control);  // the owner is gone without detaching: nobody will ever stop this sandbox
                control = -1;
                end_once();
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) relay.pump();
        int status = 0;
        const pid_t done = ::waitpid(s.child, &status, WNOHANG);
        if (done == s.child) {
            relay.drain();
            if (control >= 0) ::close(control);
            return status;
        }
        if (done < 0 && errno != EINTR) break;
    }
    int status = 0;
    while (::waitpid(s.child, &status, 0) < 0 && errno == EINTR) {
    }
    relay.drain();
    if (control >= 0) ::close(control);
    return status;
}

}  // namespace sandbox
