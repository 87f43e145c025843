#include "process_box.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/wait.h>

#include <actionhost/runtime_support/process.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <sstream>
#include <thread>

namespace cloud_fakes {

namespace rs = actionhost::runtime_support;

ProcessBox::ProcessBox(const std::string &name) : dir_(std::make_unique<actionhost::testing::TempDir>("fakebox-" + name)) {
    home_ = dir_->path() + "/home";
    std::filesystem::create_directories(home_);
}

ProcessBox::~ProcessBox() { stop(); }

std::map<std::string, std::string> ProcessBox::environment(const std::map<std::string, std::string> &extra) const {
    // A container's environment: its own HOME (never the machine's start-up files), a plain PATH.
    std::map<std::string, std::string> env = {{"HOME", home_},
                                              {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                                              {"LANG", "C.UTF-8"},
                                              {"USER", "root"}};
    for (const auto &[k, v] : extra) env[k] = v;
    return env;
}

pid_t ProcessBox::start(const std::string &command, const std::map<std::string, std::string> &env) {
    rs::SpawnOptions o;
    o.argv = {"/bin/bash", "-c", command};
    o.env = environment(env);
    o.cwd = home_;
    std::lock_guard lock(mutex_);
    o.log_path = dir_->path() + "/proc-" + std::to_string(pids_.size()) + ".log";
    pid_t pid = rs::spawn_process(o);
    pids_.push_back(pid);
    std::ofstream(dir_->path() + "/pid-" + std::to_string(pid)) << o.log_path;
    return pid;
}

CommandResult ProcessBox::run(const std::string &command, const std::map<std::string, std::string> &env, double timeout_s) {
    pid_t pid = start(command, env);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    CommandResult r;
    for (int i = 0; i < 1000000; ++i) {
        if (auto st = rs::try_reap(pid)) {
            r.exit_code = WIFEXITED(*st) ? WEXITSTATUS(*st) : 128 + WTERMSIG(*st);
            break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            rs::stop_process_group(pid, 1.0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.output = log(pid);
    std::lock_guard lock(mutex_);
    std::erase(pids_, pid);
    return r;
}

void ProcessBox::freeze() {
    std::lock_guard lock(mutex_);
    for (pid_t p : pids_) kill(-p, SIGSTOP);
}

void ProcessBox::thaw() {
    std::lock_guard lock(mutex_);
    for (pid_t p : pids_) kill(-p, SIGCONT);
}

void ProcessBox::stop() {
    std::vector<pid_t> pids;
    {
        std::lock_guard lock(mutex_);
        pids.swap(pids_);
    }
    for (pid_t p : pids) {
        kill(-p, SIGCONT);  // a frozen group must wake to see SIGTERM
        rs::stop_process_group(p, 5.0);
        rs::try_reap(p);
    }
}

bool ProcessBox::running(pid_t pid) const {
    std::lock_guard lock(mutex_);
    if (std::find(pids_.begin(), pids_.end(), pid) == pids_.end()) return false;
    return !rs::try_reap(pid).has_value() && rs::process_exists(pid);
}

int ProcessBox::running_count() const {
    std::vector<pid_t> pids;
    {
        std::lock_guard lock(mutex_);
        pids = pids_;
    }
    int n = 0;
    for (pid_t p : pids)
        if (running(p)) ++n;
    return n;
}

std::string ProcessBox::log(pid_t pid) const {
    std::ifstream pidfile(dir_->path() + "/pid-" + std::to_string(pid));
    std::string path;
    std::getline(pidfile, path);
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace cloud_fakes
