// Helpers shared by the bash plugin's HTTP tests: a host per test with a quiet home directory (so the
// machine's own ~/.bashrc does not slow every shell start) and short soft timeouts.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "support/free_port.hpp"
#include "support/host_process.hpp"
#include "support/temp_dir.hpp"

namespace bashtest {

using actionhost::testing::free_port;
using actionhost::testing::HostOptions;
using actionhost::testing::HostProcess;
using actionhost::testing::TempDir;
using nlohmann::json;

inline const std::string kTimeoutHelp =
    "You may wait longer to see additional output by sending empty command '', send other commands to interact "
    "with the current process, send keys (\"C-c\", \"C-z\", \"C-d\") to interrupt/kill the previous command before "
    "sending your new command, or use the timeout parameter in execute_bash for future commands.";

struct RunOpts {
    double timeout = -1;  // > 0: hard timeout
    bool blocking = false;
    bool is_input = false;
    bool is_static = false;
    bool hidden = false;
    json cwd = nullptr;
    std::string session;
};

inline json run_action(const std::string &command, const RunOpts &o = {}) {
    json a = {{"action", "run"},
              {"args",
               {{"command", command},
                {"is_input", o.is_input},
                {"thought", ""},
                {"blocking", o.blocking},
                {"is_static", o.is_static},
                {"cwd", o.cwd},
                {"hidden", o.hidden},
                {"confirmation_state", "confirmed"},
                {"security_risk", -1}}}};
    if (o.timeout > 0) a["timeout"] = o.timeout;
    return a;
}

// A host with the bash plugin; `soft_timeout` is NO_CHANGE_TIMEOUT_SECONDS.
class BashHost {
  public:
    explicit BashHost(int soft_timeout = 3, HostOptions extra = {}) : home_("ahbashhome") {
        HostOptions o = std::move(extra);
        if (!o.env.count("HOME")) o.env["HOME"] = home_.path();
        o.env["NO_CHANGE_TIMEOUT_SECONDS"] = std::to_string(soft_timeout);
        host_ = std::make_unique<HostProcess>(o);
    }
    HostProcess &host() { return *host_; }
    const std::string &wd() const { return host_->working_dir(); }
    const std::string &home() const { return home_.path(); }

    json run(const std::string &command, const RunOpts &o = {}) {
        return host_->execute(run_action(command, o), o.session);
    }
    json input(const std::string &text, const std::string &session = "") {
        RunOpts o;
        o.is_input = true;
        o.session = session;
        return run(text, o);
    }
    // Runs with a generous hard timeout and no soft timeout: for commands that must complete.
    json must_complete(const std::string &command, const std::string &session = "") {
        RunOpts o;
        o.timeout = 60;
        o.blocking = true;
        o.session = session;
        return run(command, o);
    }

  private:
    TempDir home_;
    std::unique_ptr<HostProcess> host_;
};

inline int exit_code(const json &obs) { return obs.at("extras").at("metadata").at("exit_code").get<int>(); }
inline std::string content(const json &obs) { return obs.at("content").get<std::string>(); }
inline std::string suffix(const json &obs) { return obs.at("extras").at("metadata").at("suffix").get<std::string>(); }
inline std::string prefix(const json &obs) { return obs.at("extras").at("metadata").at("prefix").get<std::string>(); }
inline bool contains(const std::string &hay, const std::string &needle) { return hay.find(needle) != std::string::npos; }

inline bool can_connect(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
    close(fd);
    return ok;
}

inline bool process_exists(int pid) { return pid > 0 && kill(pid, 0) == 0; }

}  // namespace bashtest
