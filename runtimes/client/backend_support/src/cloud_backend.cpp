#include "actionhost/runtime_support/cloud_backend.hpp"

#include <cstdlib>
#include <thread>
#include <actionhost/common/shell_quote.hpp>

namespace actionhost::runtime_support {

std::string CloudBackend::credential(const char *env_name, const std::string &config_key, const std::string &hint) const {
    std::string v = setting(env_name, config_key, "");
    if (v.empty()) throw std::runtime_error(std::string(env_name) + " is not set: " + hint);
    return v;
}

std::string CloudBackend::setting(const char *env_name, const std::string &config_key, const std::string &fallback) const {
    if (const char *e = std::getenv(env_name); e && *e) return e;
    auto c = config(config_key);
    return c && !c->empty() ? *c : fallback;
}

SandboxHostLaunch CloudBackend::sandbox_host(const std::string &vendor, int default_port) const {
    SandboxHostLaunch l;
    std::string install = config_string(vendor + ".install_dir", "/openhands/actionhost");
    while (install.size() > 1 && install.back() == '/') install.pop_back();
    l.port = static_cast<int>(config_number(vendor + ".port", default_port));
    if (l.port <= 0 || l.port > 65534) throw std::invalid_argument("[" + vendor + "] port must be 1..65534");
    std::vector<std::string> args = host_args();
    set_flag(args, "--host", "0.0.0.0");
    l.workspace = flag_value(args, "--working-dir").value_or("/workspace");
    l.argv = {install + "/bin/actionhost", std::to_string(l.port)};
    l.argv.insert(l.argv.end(), args.begin(), args.end());
    l.env = host_env();
    l.env["port"] = std::to_string(l.port);
    l.env["PYTHONUNBUFFERED"] = "1";
    l.env["VSCODE_PORT"] = std::to_string(l.port + 1);
    l.env["OPENHANDS_SESSION_ID"] = info().session_id;
    if (config_bool("core.debug", false)) l.env["DEBUG"] = "true";
    l.session_api_key = l.env.count("SESSION_API_KEY") ? l.env["SESSION_API_KEY"] : "";
    return l;
}

void CloudBackend::poll_until(const std::string &what, double timeout_s, double interval_s, const std::function<bool()> &probe) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    long max_polls = static_cast<long>(timeout_s / std::max(interval_s, 0.01)) + 2;
    for (long i = 0; i < max_polls; ++i) {
        if (probe()) return;
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
    }
    throw Timeout(what + " within " + std::to_string(static_cast<int>(timeout_s)) + " s");
}

std::string shell_quote(const std::string &word) { return common::shell_word(word); }

std::string shell_join(const std::vector<std::string> &argv) { return common::shell_words(argv); }

}  // namespace actionhost::runtime_support
