#include "kernel/kernel_process.hpp"

#include <unistd.h>

#include <array>
#include <chrono>

#include <boost/asio/io_context.hpp>

#include <actionhost/common/io/borrowed_descriptor.hpp>
#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/user_entry.hpp>
#include <actionhost/common/process_state.hpp>
#include <csignal>
#include <cstring>

extern char **environ;

namespace actionhost::jupyter {

namespace {
constexpr size_t kTailBytes = 8192;

struct TargetUser {
    bool switch_user = false;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
    std::string name, home, shell;
};

// Resolves who the kernel runs as. Everything is looked up before fork: after fork in a threaded process
// only async-signal-safe calls are allowed.
common::Status resolve_user(const std::string &username, TargetUser &out, std::string &note) {
    if (username.empty()) return common::ok();
    const uid_t self = geteuid();
    const auto user = common::user_by_name(username);
    if (!user) {
        if (self == 0) return common::fail("cannot start the IPython kernel as user '" + username + "': no such user");
        note = "user '" + username + "' does not exist; the kernel runs as the host's user";
        return common::ok();
    }
    if (user->uid == self) return common::ok();
    if (self != 0) {
        note = "the host is not root, so the kernel runs as the host's user instead of '" + username + "'";
        return common::ok();
    }
    out.switch_user = true;
    out.uid = user->uid;
    out.gid = user->gid;
    out.name = user->name;
    out.home = user->home.empty() ? "/" : user->home;
    out.shell = user->shell.empty() ? "/bin/sh" : user->shell;
    out.groups = common::group_list(*user);
    return common::ok();
}

}  // namespace

// The reader's event loop: the pipe, until every writer closed it or the destructor stops the loop.
struct KernelProcess::OutputReader {
    explicit OutputReader(KernelProcess &k) : kernel(k), pipe(io, k.child_->output_fd()) {}

    void read() {
        pipe.async_read_some(boost::asio::buffer(buf), [this](const boost::system::error_code &ec, size_t n) {
            if (ec) return;  // every writer closed (end of file), or the pipe failed
            std::lock_guard<std::mutex> lock(kernel.tail_mu_);
            kernel.tail_.append(buf.data(), n);
            if (kernel.tail_.size() > 2 * kTailBytes) kernel.tail_.erase(0, kernel.tail_.size() - kTailBytes);
            read();
        });
    }

    KernelProcess &kernel;
    boost::asio::io_context io{1};
    common::io::BorrowedDescriptor pipe;
    std::array<char, 4096> buf;
};

common::Result<std::unique_ptr<KernelProcess>> KernelProcess::spawn(const SpawnOptions &o, std::string &note) {
    if (o.argv.empty()) return common::fail("empty kernel command");
    TargetUser user;
    if (auto resolved = resolve_user(o.username, user, note); !resolved) return resolved.as_failure();

    // Environment: the host's, then the extras, then the target user's identity.
    std::map<std::string, std::string> env;
    for (char **e = environ; e && *e; ++e) {
        const char *eq = std::strchr(*e, '=');
        if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
    }
    for (const auto &[k, v] : o.extra_env) env[k] = v;
    if (user.switch_user) {
        env["HOME"] = user.home;
        env["USER"] = user.name;
        env["LOGNAME"] = user.name;
    }
    common::SpawnSpec spec;
    spec.argv = o.argv;
    spec.env.emplace();
    for (const auto &[k, v] : env) spec.env->push_back(k + "=" + v);
    spec.working_dir = o.working_dir;
    spec.use_pty = false;
    spec.out = common::Stream::pipe();
    spec.err = common::Stream::to_stdout();
    if (user.switch_user) spec.user = common::UserSwitch{user.uid, user.gid, user.groups};
    auto child = common::ChildProcess::spawn(spec);
    if (!child) return child.as_failure();
    std::unique_ptr<KernelProcess> p(new KernelProcess());
    p->child_ = std::move(child).value();
    p->output_ = std::make_unique<OutputReader>(*p);
    p->reader_ = std::thread([raw = p->output_.get()] {
        raw->read();
        raw->io.run();
    });
    return p;
}

KernelProcess::~KernelProcess() {
    terminate();
    if (output_) output_->io.stop();
    if (reader_.joinable()) reader_.join();
    output_.reset();  // the pipe goes back to child_ unclosed
}

std::string KernelProcess::output_tail() const {
    std::lock_guard<std::mutex> lock(tail_mu_);
    return tail_.size() > kTailBytes ? tail_.substr(tail_.size() - kTailBytes) : tail_;
}

pid_t KernelProcess::pid() const { return child_->pid(); }

bool KernelProcess::alive() {
    if (!exit_reason_.empty()) return false;
    if (child_->running()) {
        // Its main thread gone for longer than running() waits: a kernel without it serves nothing.
        const auto stat = common::read_process_stat(child_->pid());
        if (!(stat && stat->state == 'Z')) return true;
        exit_reason_ = "exited (status unknown)";
        return false;
    }
    exit_reason_ = child_->wait(std::chrono::milliseconds(0)).value_or(common::ExitStatus{}).describe();
    return false;
}

std::string KernelProcess::exit_reason() const { return exit_reason_; }

void KernelProcess::interrupt() {
    if (exit_reason_.empty()) child_->signal_group(SIGINT);
}

void KernelProcess::terminate(double grace_s) {
    child_->terminate(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(grace_s)));
    if (exit_reason_.empty()) exit_reason_ = child_->wait(std::chrono::milliseconds(0)).value_or(common::ExitStatus{}).describe();
}

}  // namespace actionhost::jupyter
