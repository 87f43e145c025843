// GET /metrics' body: the action counters and histograms plus the figures read at the scrape (the host
// process, the sandbox's cgroups and filesystems, sessions, terminals, plugins), in the Prometheus
// text format (version 0.0.4) as prometheus-cpp's TextSerializer writes it. docs/operations.md lists
// every metric.
#pragma once

#include <string>

namespace actionhost::host {

class ActionMetrics;
class OwnCgroups;
class Router;
class TerminalRegistry;

struct MetricsSources {
    const ActionMetrics &actions;
    Router &router;
    const OwnCgroups &cgroups;
    std::string working_dir;           // its filesystem is reported beside "/"
    TerminalRegistry *terminals;       // null where the host serves none
    double uptime_s = 0;
};

inline constexpr const char *kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Thread: any (each source is safe to read concurrently).
std::string metrics_text(const MetricsSources &sources);

}  // namespace actionhost::host
