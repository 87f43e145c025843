// ahctl commands for operators (docs/operations.md): top (every kept-alive sandbox's figures from its
// host's GET /metrics, refreshed) and logs (a host's log lines from GET /logs, followed with -f).
#pragma once

#include <map>
#include <string>

#include "cli.hpp"

namespace ahctl {

// One scrape reduced to what `top` shows: unlabelled samples by name, and the sums top needs of
// labelled ones ("actionhost_actions_total" of every outcome, "...:not_ok" of outcomes other than ok,
// disk figures of path "/"). Lines that are not samples are skipped.
std::map<std::string, double> top_figures(const std::string &prometheus_text);

int cmd_top(const Options &options);
int cmd_logs(const Options &options);

}  // namespace ahctl
