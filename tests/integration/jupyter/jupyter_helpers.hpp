// Shared helpers for the run_ipython tests over HTTP against the real host and a real ipykernel.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "support/host_process.hpp"

namespace actionhost::testing::jupyter {

// A host with the jupyter plugin loaded.
HostOptions jupyter_host(HostOptions extra = {});

// A run_ipython action with OpenHands' defaults; timeout_s > 0 sets the top-level hard timeout.
nlohmann::json ipython_action(const std::string &code, double timeout_s = -1, bool include_extra = true);

// Executes a cell and returns the observation (fails the test unless HTTP 200).
nlohmann::json ipython(HostProcess &host, const std::string &code, double timeout_s = -1,
                       const std::string &session = "", bool include_extra = true);

// "\n[Jupyter current working directory: <cwd>]\n[Jupyter Python interpreter: /usr/bin/python3]"
std::string trailer(const std::string &cwd);

// The host's peak resident memory in kB (VmHWM), or -1.
long host_peak_rss_kb(int pid);

}  // namespace actionhost::testing::jupyter
