#include "container_netns.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace docker {

namespace {

const char *kUnsetIt = "; unset it (sandbox.lifetime works with any engine) or use the sandbox runtime";

}  // namespace

void check_engine_for_idle_timeout(bool engine_is_local) {
    if (!engine_is_local)
        throw std::runtime_error(std::string("sandbox.idle_timeout needs the Docker engine on this machine: a container's connections are "
                                             "counted in its network namespace through /proc, and this engine is reached over TCP") +
                                 kUnsetIt);
}

std::string container_net_dir(const nlohmann::json &inspect, bool engine_is_local, const std::string &proc) {
    check_engine_for_idle_timeout(engine_is_local);
    const std::string id = inspect.value("Id", "");
    const nlohmann::json state = inspect.value("State", nlohmann::json::object());
    const long pid = state.is_object() ? state.value("Pid", 0L) : 0L;
    if (pid <= 0 || id.empty()) throw std::runtime_error("sandbox.idle_timeout: the container " + id + " is not running");
    const std::string dir = proc + "/" + std::to_string(pid);
    std::ifstream cgroup(dir + "/cgroup");
    std::ostringstream groups;
    groups << cgroup.rdbuf();
    if (groups.str().find(id) == std::string::npos)
        throw std::runtime_error("sandbox.idle_timeout needs the container's processes visible on this machine, but pid " + std::to_string(pid) +
                                 " here is not container " + id.substr(0, 12) +
                                 "'s (an engine in another pid namespace: rootless, or the client in a container of its own)" + kUnsetIt);
    if (!std::ifstream(dir + "/net/tcp").good())
        throw std::runtime_error("sandbox.idle_timeout needs to read the container's connections in " + dir + "/net/tcp, which this user cannot" +
                                 kUnsetIt);
    return dir + "/net";
}

}  // namespace docker
