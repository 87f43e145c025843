// ahctl commands for a running sandbox's network: port (published ports), ui (the web view's address),
// --publish at start (docs/runtimes.md, "Published ports"), and net (the egress policy of a sandbox on
// the internet: shown, changed, its refusal log).
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "workspace_commands.hpp"

namespace ahctl {

// --publish PORT | MACHINE_PORT:PORT | ADDRESS:MACHINE_PORT:PORT (Docker's order; [::1]:8080:80 for IPv6).
struct PortRequest {
    int port = 0;
    int machine_port = 0;
    std::string address = "127.0.0.1";
};
// Throws UsageError for anything else.
PortRequest parse_publish(const std::string &spec);

// Publishes each of `requests` on a connected runtime and tells where on stderr ("port 8000 of SID is
// published at 127.0.0.1:41234"). Throws what Runtime::publish_port throws.
void publish_requested(actionhost::client::Runtime &runtime, const std::vector<PortRequest> &requests);

int cmd_port(const Options &options, OpenRuntime open);
int cmd_ui(const Options &options, OpenRuntime open);
int cmd_net(const Options &options, OpenRuntime open);

}  // namespace ahctl
