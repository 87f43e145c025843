#include "options.hpp"

#include <stdexcept>

namespace sandbox {

Options parse_options(int argc, char **argv) {
    Options o;
    int i = 1;
    auto value = [&](const std::string &name) -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(name + " needs a value");
        return argv[++i];
    };
    for (; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "--root-mount") o.root_mount = value(a);
        else if (a == "--workspace") o.workspace = value(a);
        else if (a == "--workspace-target") o.workspace_target = value(a);
        else if (a == "--ro-bind") o.ro_binds.push_back(value(a));
        else if (a == "--socket") o.socket_path = value(a);
        else if (a == "--forward-port") o.forward_port = std::stoi(value(a));
        else if (a == "--rw-bind") {
            std::string v = value(a);
            auto colon = v.find(':');
            if (colon == std::string::npos) throw std::invalid_argument("--rw-bind needs OUTSIDE:INSIDE");
            o.rw_binds.emplace_back(v.substr(0, colon), v.substr(colon + 1));
        }
        else if (a == "--cgroup") o.cgroup_name = value(a);
        else if (a == "--memory-mb") o.memory_mb = std::stol(value(a));
        else if (a == "--pids") o.pids = std::stol(value(a));
        else if (a == "--cpus") o.cpus = std::stod(value(a));
        else if (a == "--network") o.network = true;
        else if (a == "--no-seccomp") o.seccomp = false;
        else if (a == "--hostname") o.hostname = value(a);
        else if (a == "--home") o.home = value(a);
        else throw std::invalid_argument("unknown option " + a);
    }
    for (; i < argc; ++i) o.command.push_back(argv[i]);
    if (o.command.empty()) throw std::invalid_argument("no command after --");
    if (o.root_mount.empty()) throw std::invalid_argument("--root-mount is required");
    if (o.workspace_target.empty() || o.workspace_target[0] != '/')
        throw std::invalid_argument("--workspace-target must be absolute");
    if (!o.socket_path.empty() && o.forward_port <= 0) throw std::invalid_argument("--socket needs --forward-port");
    return o;
}

}  // namespace sandbox
