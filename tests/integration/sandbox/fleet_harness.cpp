#include "fleet_harness.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/host_process.hpp"
#include "support/proc_file.hpp"
#include "support/run_process.hpp"

namespace scale_test {

namespace fs = std::filesystem;
using actionhost::testing::read_file;

namespace {

pid_t spawn(const std::vector<std::string> &argv, const std::string &out, const std::string &err) {
    const pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int in = ::open("/dev/null", O_RDONLY);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        std::vector<char *> args;
        for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    return pid;
}

}  // namespace

Fleet::Fleet() : tmp_("ahscale-tmp"), state_("ahscale-state") {}

std::vector<std::string> Fleet::command(const std::vector<std::string> &args) const {
    std::vector<std::string> argv = {"/usr/bin/env", "TMPDIR=" + tmp(), "HOME=" + state(), actionhost::testing::build_path("bin/ahctl"),
                                     "-q", "-r", "sandbox", "--state-dir", state()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

Ahctl Fleet::ahctl(const std::vector<std::string> &args, double timeout_s) const {
    static int calls = 0;
    const std::string out = tmp() + "/ahctl-out-" + std::to_string(++calls);
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = spawn(command(args), out, out + ".err");
    Ahctl r;
    int status = 0;
    for (int i = 0; i < static_cast<int>(timeout_s * 100); ++i) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (r.code == -1) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        r.err = "ahctl timed out\n";
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.out = read_file(out);
    r.err += read_file(out + ".err");
    fs::remove(out);
    fs::remove(out + ".err");
    return r;
}

pid_t Fleet::ahctl_in_background(const std::vector<std::string> &args, const std::string &out) const {
    return spawn(command(args), out, out + ".err");
}

std::string Fleet::leftovers(const std::vector<std::string> &session_ids) const {
    std::ostringstream left;
    for (const auto &e : fs::directory_iterator(tmp()))
        if (e.path().filename().string().rfind("ah-sandbox-", 0) == 0) left << "run directory " << e.path() << "\n";
    for (const auto &e : fs::directory_iterator(state())) {
        const std::string ext = e.path().extension();
        if (ext == ".json" || ext == ".starting") left << "state file " << e.path() << "\n";
    }
    for (const auto &sid : session_ids) {
        // Groups are named ah-<the session id's first 16 characters>-XXXXXX (sandbox_leftovers.hpp).
        const std::string prefix = "ah-" + sid.substr(0, 16) + "-";
        for (const char *root : {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/freezer",
                                 "/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
            std::error_code ec;
            for (const auto &e : fs::directory_iterator(std::string(root) + "/actionhost", ec))
                if (e.path().filename().string().rfind(prefix, 0) == 0) left << "cgroup " << e.path() << "\n";
        }
    }
    for (const auto &e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = actionhost::testing::read_proc_file("/proc/" + name + "/cmdline");
        for (char &c : cmdline)
            if (c == '\0') c = ' ';
        if (cmdline.find(tmp() + "/ah-sandbox-") != std::string::npos) left << "process " << name << ": " << cmdline << "\n";
    }
    std::ifstream mounts("/proc/self/mountinfo");
    for (std::string line; std::getline(mounts, line);)
        if (line.find(tmp()) != std::string::npos) left << "mount " << line << "\n";
    return left.str();
}

pid_t init_of(const Fleet &fleet, const std::string &session_id) {
    const std::string text = read_file(fleet.state() + "/sandbox-" + session_id + ".backend.json");
    if (text.empty()) return -1;
    return nlohmann::json::parse(text).value("pid", -1);
}

pid_t pid1_of(pid_t init) {
    std::istringstream children(actionhost::testing::read_proc_file("/proc/" + std::to_string(init) + "/task/" + std::to_string(init) + "/children"));
    pid_t pid = -1;
    children >> pid;
    return pid;
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(line);
    return out;
}

}  // namespace scale_test
