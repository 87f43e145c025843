// ah-docker-keeper: the lifetime and idle timeout of a `docker` container (docs/runtimes.md,
// "Lifetimes"), kept by a process of the client's user that outlives the client
// (actionhost/lifetime/keeper_program.hpp says how it runs). The Engine API has no container lifetime
// or idle timer of its own; what this does to the container, through the backend's own Engine:
//   - idle: connections to the host's port in the container's network namespace
//     (container_netns.hpp), connections from the container to itself not counted unless it shares
//     the machine's network: the agent cannot keep its container awake by talking to itself;
//   - pause: POST /containers/{id}/pause (the engine's cgroup freezer); thaw: /unpause;
//   - end: the container removed as the backend's close removes it (Engine::remove_container);
//   - gone: the container no longer exists (inspect: 404), looked at every second.
// A container stopped or paused by someone else (Runtime::pause stops it; `docker pause`) counts as
// paused by them: never resumed here.
#include <actionhost/lifetime/keeper_program.hpp>
#include <actionhost/lifetime/tcp_activity.hpp>

#include <CLI/CLI.hpp>

#include <stdexcept>

#include "container_netns.hpp"
#include "engine_api.hpp"

namespace {

using actionhost::lifetime::KeeperTarget;
using actionhost::lifetime::LifetimePlan;
using nlohmann::json;

struct ContainerOptions {
    std::string engine, id;
    int port = 0;
    bool ignore_local_peers = false;
};

class DockerKeeper : public KeeperTarget {
  public:
    explicit DockerKeeper(const ContainerOptions &o) : o_(o), engine_(nullptr, o.engine) {}

    void prepare(const LifetimePlan &plan) override {
        idle_ = plan.idle_timeout_s > 0;
        const auto c = engine_.inspect(o_.id);
        if (!c) throw std::runtime_error("the container " + o_.id + " is gone");
        take(*c);
        if (idle_) {
            net_dir_ = docker::container_net_dir(*c, engine_.local());
            net_pid_ = pid_;
        }
    }

    // Looked at every second: also how a restarted container's new pid (Runtime::resume) is followed.
    bool gone() override {
        const auto c = engine_.inspect(o_.id);
        if (!c) return true;
        take(*c);
        if (idle_ && running_ && pid_ != net_pid_) {
            try {
                net_dir_ = docker::container_net_dir(*c, engine_.local());
                net_pid_ = pid_;
            } catch (const std::exception &) {
                net_dir_.clear();  // not counted until it can be
            }
        }
        return false;
    }

    size_t connections() override {
        if (!running_ || net_dir_.empty()) return 0;
        return actionhost::lifetime::open_tcp_connections(o_.port, o_.ignore_local_peers, net_dir_);
    }

    bool freeze() override {
        const int status = engine_.call("POST", "/containers/" + o_.id + "/pause", "", "application/json", 30).status;
        if (status == 204) paused_ = true;
        return status == 204;
    }
    bool thaw() override {
        const int status = engine_.call("POST", "/containers/" + o_.id + "/unpause", "", "application/json", 30).status;
        if (status == 204) paused_ = false;
        return status == 204 || !paused_;
    }
    // From the last look (at most a second old), kept current by this keeper's own pause and thaw.
    bool frozen() override { return paused_ || !running_; }

    void end() override { engine_.remove_container(o_.id); }

  private:
    void take(const json &c) {
        const json state = c.value("State", json::object());
        running_ = state.value("Running", false);
        paused_ = state.value("Paused", false);
        pid_ = state.value("Pid", 0L);
    }

    ContainerOptions o_;
    docker::Engine engine_;
    bool idle_ = false, running_ = false, paused_ = false;
    long pid_ = 0, net_pid_ = 0;
    std::string net_dir_;  // /proc/<pid>/net of the container, "" while it cannot be read
};

}  // namespace

int main(int argc, char **argv) {
    ContainerOptions o;
    actionhost::lifetime::KeeperProgram program;
    program.name = "ah-docker-keeper";
    program.description = "Keeps a docker container's sandbox.lifetime and idle_timeout after its client exited";
    program.add_options = [&o](CLI::App &app) {
        app.add_option("--engine", o.engine, "the Docker engine: its socket, unix://PATH or tcp://HOST:PORT")->required();
        app.add_option("--container", o.id, "the container's id")->required();
        app.add_option("--port", o.port, "the host's port inside the container")->required()->check(CLI::Range(1, 65535));
        app.add_flag("--ignore-local-peers", o.ignore_local_peers, "connections from the container to itself are not activity");
    };
    program.make_target = [&o] { return std::make_unique<DockerKeeper>(o); };
    return actionhost::lifetime::run_keeper_program(argc, argv, program);
}
