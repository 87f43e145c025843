// Where the connections to a container's host are counted for its idle timeout (ah-docker-keeper,
// actionhost/lifetime/tcp_activity.hpp): the container's network namespace, read on this machine as
// /proc/<its init's pid>/net — which needs the engine on this machine, and that pid to be the
// container's here (an engine in another pid namespace, a rootless one, names pids this machine does
// not have, or has for other processes).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace docker {

// Throws the sentence naming sandbox.idle_timeout for an engine that is not on this machine (its
// containers' pids are not this machine's): checked before anything is created.
void check_engine_for_idle_timeout(bool engine_is_local);

// "/proc/<State.Pid>/net" of the container `inspect` describes (GET /containers/<id>/json), checked:
// the engine is local, the container runs, /proc/<pid>/cgroup names the container's id and
// /proc/<pid>/net/tcp can be read. Throws std::runtime_error with a sentence naming
// sandbox.idle_timeout otherwise. `proc`: the proc file system to read (a test may give another).
std::string container_net_dir(const nlohmann::json &inspect, bool engine_is_local, const std::string &proc = "/proc");

}  // namespace docker
