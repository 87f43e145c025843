#include "lifetime_args.hpp"

#include <actionhost/lifetime/lifetime_plan.hpp>

#include <stdexcept>

namespace actionhost::sandbox_runtime {

std::vector<std::string> lifetime_args(const LifetimeConfig &config) {
    const lifetime::LifetimePlan plan = lifetime::plan_lifetime({config.lifetime, config.idle_timeout, config.idle_action});
    if (plan.idle_timeout_s > 0 && config.host_network)
        throw std::runtime_error("sandbox.idle_timeout needs the sandbox's own network (network = \"none\" or \"internet\"): with \"host\" "
                                 "its requests do not pass through ah-sandbox-init, which could not see them");
    return plan.args();
}

}  // namespace actionhost::sandbox_runtime
