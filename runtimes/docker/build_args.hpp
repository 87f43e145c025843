// `[sandbox] runtime_extra_build_args`: OpenHands hands these to `docker buildx build` as they are; here
// the build goes through the Engine API's POST /build, so each flag becomes its query parameter. Flags
// with no Engine API equivalent are refused by name rather than dropped.
#pragma once

#include <string>
#include <vector>

namespace docker {

// "--build-arg K=V", "--network=host", "--add-host h:ip", "--label k=v", "--no-cache", "--pull",
// "--target t", "--platform p", "--shm-size n", "--cpuset-cpus c", "--memory n" (each also as
// --flag=value) → "&buildargs=...&networkmode=..." to append to /build's query. Throws
// std::invalid_argument naming the flag it cannot map.
std::string build_query_from_args(const std::vector<std::string> &args);

}  // namespace docker
