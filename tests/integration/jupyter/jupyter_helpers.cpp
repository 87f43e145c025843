#include "jupyter_helpers.hpp"

#include <fstream>
#include <sstream>

namespace actionhost::testing::jupyter {

HostOptions jupyter_host(HostOptions extra) {
    extra.args.insert(extra.args.begin(), {"--plugins", "jupyter"});
    extra.start_timeout_s = std::max(extra.start_timeout_s, 60.0);
    // A hung cell fails its test in a minute rather than at the ctest timeout.
    extra.env.emplace("ACTIONHOST_JUPYTER_TIMEOUT", "60");
    return extra;
}

nlohmann::json ipython_action(const std::string &code, double timeout_s, bool include_extra) {
    nlohmann::json a = {{"action", "run_ipython"},
                        {"args",
                         {{"code", code},
                          {"thought", ""},
                          {"include_extra", include_extra},
                          {"confirmation_state", "confirmed"},
                          {"security_risk", -1},
                          {"kernel_init_code", ""}}}};
    if (timeout_s > 0) a["timeout"] = timeout_s;
    return a;
}

nlohmann::json ipython(HostProcess &host, const std::string &code, double timeout_s, const std::string &session,
                       bool include_extra) {
    return host.execute(ipython_action(code, timeout_s, include_extra), session);
}

std::string trailer(const std::string &cwd) {
    return "\n[Jupyter current working directory: " + cwd + "]\n[Jupyter Python interpreter: /usr/bin/python3]";
}

long host_peak_rss_kb(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            std::istringstream s(line.substr(6));
            long kb = -1;
            s >> kb;
            return kb;
        }
    }
    return -1;
}

}  // namespace actionhost::testing::jupyter
