// ah-local-keeper: the lifetime and idle timeout of a `local` host (docs/runtimes.md, "Lifetimes"),
// kept by a process that outlives the client (actionhost/lifetime/keeper_program.hpp says how it runs).
// Started by the local backend when sandbox.lifetime or idle_timeout is set; what it does to the host:
//   - idle: connections to the host's port on this machine (/proc/net/tcp, tcp6);
//   - pause: the host's whole tree, not its process group alone (host_freezer.hpp says how and why);
//   - end: the host stopped and its run directory and temporary workspace removed by the backend's own
//     stop_host (local_host.hpp), then whatever of its tree outlived it;
//   - gone: the host process (its pid and start time) no longer runs.
#include <actionhost/lifetime/keeper_program.hpp>
#include <actionhost/lifetime/tcp_activity.hpp>
#include <actionhost/runtime_support/process.hpp>

#include <CLI/CLI.hpp>

#include <fstream>
#include <stdexcept>

#include "host_freezer.hpp"
#include "local_host.hpp"
#include "process_tree.hpp"

namespace {

using namespace actionhost::local_runtime;
using actionhost::lifetime::KeeperTarget;
using actionhost::lifetime::LifetimePlan;
namespace rs = actionhost::runtime_support;

struct HostOptions {
    pid_t pid = 0;
    int port = 0;
    std::string run_dir, temp_workspace;
};

// 'T' (stopped by a signal) or 't' (by a tracer): someone paused the host (Runtime::pause, or this
// keeper without a freezer).
bool stopped(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && (text[close + 2] == 'T' || text[close + 2] == 't');
}

class LocalKeeper : public KeeperTarget {
  public:
    explicit LocalKeeper(const HostOptions &o) : o_(o) {}

    void prepare(const LifetimePlan &plan) override {
        const auto id = rs::identify_process(o_.pid);
        if (!id) throw std::runtime_error("the local host (pid " + std::to_string(o_.pid) + ") is not running");
        host_ = *id;
        if (plan.idle_timeout_s > 0 && plan.idle_action == "pause") freezer_ = HostFreezer::make(freezer_group_name(o_.run_dir), o_.pid);
    }

    bool gone() override { return !rs::is_running(host_); }
    size_t connections() override { return actionhost::lifetime::open_tcp_connections(o_.port, false); }

    bool freeze() override { return freezer_ ? freezer_->freeze() : tree_.stop(host_.pid); }
    bool thaw() override {
        if (freezer_) freezer_->thaw();
        tree_.resume();
        return true;
    }
    bool frozen() override { return stopped(host_.pid) || (freezer_ && freezer_->frozen()); }

    void end() override {
        // Found before the host goes: once it is gone, its children's parent is another process.
        const auto tree = process_tree(host_.pid);
        thaw();
        LocalHost host;
        host.pid = host_.pid;
        host.run_dir = o_.run_dir;
        host.temp_workspace = o_.temp_workspace;
        stop_host(host);
        kill_processes(tree);  // what left the host's process group (its shells' sessions) and outlived it
        if (freezer_) freezer_->kill_all(5.0);
        release();
    }

    void release() override {
        tree_.resume();
        freezer_.reset();  // thawed, emptied back where the host came from, removed
    }

  private:
    HostOptions o_;
    rs::ProcessIdentity host_;
    std::unique_ptr<HostFreezer> freezer_;  // root with a v1 freezer; else the tree is stopped by signals
    StoppedTree tree_;
};

}  // namespace

int main(int argc, char **argv) {
    HostOptions o;
    actionhost::lifetime::KeeperProgram program;
    program.name = "ah-local-keeper";
    program.description = "Keeps a local host's sandbox.lifetime and idle_timeout after its client exited";
    program.add_options = [&o](CLI::App &app) {
        app.add_option("--host-pid", o.pid, "the host's pid (its process group's id too)")->required()->check(CLI::PositiveNumber);
        app.add_option("--port", o.port, "the host's TCP port on this machine")->required()->check(CLI::Range(1, 65535));
        app.add_option("--run-dir", o.run_dir, "the host's run directory (removed at its end)")->required();
        app.add_option("--temp-workspace", o.temp_workspace, "the temporary workspace the backend made (removed at its end)");
    };
    program.make_target = [&o] { return std::make_unique<LocalKeeper>(o); };
    return actionhost::lifetime::run_keeper_program(argc, argv, program);
}
