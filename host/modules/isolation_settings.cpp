#include "modules/isolation_settings.hpp"

#include <algorithm>
#include <cstdlib>

namespace actionhost::host {

common::Result<IsolationConfig> read_isolation_config(HostEnvironment &env, const modules::ModuleRegistry &registry) {
    IsolationConfig c;
    if (const char *v = env.config_get("host.isolate"); v != nullptr) {
        std::string cur;
        for (const char *p = v;; ++p) {
            if (*p == ',' || *p == '\0') {
                cur.erase(0, cur.find_first_not_of(' '));
                while (!cur.empty() && cur.back() == ' ') cur.pop_back();
                if (!cur.empty()) {
                    const modules::Manifest *m = registry.find(cur);
                    if (m == nullptr || m->kind != modules::ModuleKind::Plugin)
                        return common::fail("host.isolate names '" + cur + "', which is not an installed plugin");
                    c.names.push_back(cur);
                }
                cur.clear();
                if (*p == '\0') break;
            } else {
                cur += *p;
            }
        }
    }
    if (const char *v = env.config_get("host.isolate_timeout_s"); v != nullptr && *v != '\0') {
        char *end = nullptr;
        const long n = std::strtol(v, &end, 10);
        if (end == v || *end != '\0' || n <= 0)
            return common::fail(std::string("host.isolate_timeout_s must be a positive number of seconds, got: ") + v);
        c.timeout = std::chrono::seconds(n);
    }
    return c;
}

bool is_isolated(const modules::Manifest &m, const IsolationConfig &config) {
    return m.isolate_process || std::find(config.names.begin(), config.names.end(), m.name) != config.names.end();
}

IsolationSettings isolation_settings_for(const modules::Manifest &m, HostEnvironment &env, const IsolationConfig &config) {
    const auto &f = env.facts();
    IsolationSettings s;
    s.program = f.install_dir + "/bin/actionhost";
    s.manifest_path = m.dir + "/manifest.json";
    s.plugin_name = m.name;
    s.facts = env.facts_for_worker();
    s.settings = env.settings_for_policy_worker();
    s.default_timeout = config.timeout;
    return s;
}

}  // namespace actionhost::host
