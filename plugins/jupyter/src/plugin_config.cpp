#include "plugin_config.hpp"

#include <cstdlib>

#include "kernel/kernel_command.hpp"

namespace actionhost::jupyter {

namespace {
std::optional<double> positive_number(const std::string &text) {
    char *end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(v > 0) || v > 1e7) return std::nullopt;
    return v;
}
}  // namespace

PluginConfig read_plugin_config(const ConfigLookup &get, std::vector<std::string> &problems) {
    PluginConfig c;
    c.kernel_command = default_kernel_command();
    // The interpreter the host found to have ipykernel (manifest "needs": /usr/bin/python3, else the
    // first python3 on PATH, as in images whose Python lives in /usr/local/bin).
    if (auto python = get("needs.python3"); python && !python->empty()) c.kernel_command.front() = *python;
    if (auto v = get("ACTIONHOST_KERNEL_CMD"); v && !v->empty()) {
        if (auto cmd = parse_kernel_command(*v)) c.kernel_command = std::move(cmd).value();
        else problems.push_back("ACTIONHOST_KERNEL_CMD: " + cmd.error().message + "; using the default");
    }
    if (auto v = get("ACTIONHOST_KERNEL_INTERRUPT_MODE"); v && !v->empty()) {
        if (*v == "message") c.interrupt_by_message = true;
        else if (*v != "signal") problems.push_back("ACTIONHOST_KERNEL_INTERRUPT_MODE must be signal or message");
    }
    auto number = [&](const char *key, double &target) {
        if (auto v = get(key); v && !v->empty()) {
            if (auto n = positive_number(*v)) target = *n;
            else problems.push_back(std::string(key) + ": not a positive number: " + *v);
        }
    };
    number("ACTIONHOST_JUPYTER_TIMEOUT", c.default_timeout_s);
    number("ACTIONHOST_KERNEL_START_TIMEOUT", c.start_timeout_s);
    double max_sessions = static_cast<double>(c.max_sessions);
    number("ACTIONHOST_JUPYTER_MAX_SESSIONS", max_sessions);
    c.max_sessions = static_cast<size_t>(max_sessions) > 0 ? static_cast<size_t>(max_sessions) : 1;
    if (auto v = get("ACTIONHOST_JUPYTER_EAGER"); v && (*v == "0" || *v == "false")) c.eager_start = false;
    // What the plugins loaded at start offer every kernel (their manifests' "python"), computed by the host.
    auto words = [](const std::string &text, const char *seps) {
        std::vector<std::string> out;
        for (size_t i = 0; i < text.size();) {
            size_t j = text.find_first_of(seps, i);
            if (j == std::string::npos) j = text.size();
            if (j > i) out.push_back(text.substr(i, j - i));
            i = j + 1;
        }
        return out;
    };
    if (auto v = get("actionhost.python_path")) c.python_path = words(*v, ":");
    if (auto v = get("actionhost.python_startup_imports")) c.python_startup_imports = words(*v, " ");
    return c;
}

}  // namespace actionhost::jupyter
