// The policy worker process: loads the policy modules the host names and answers its questions, one at a
// time, until the host closes the socket (or dies, which closes it).

#include <actionhost/common/json_io.hpp>
#include <actionhost/modules/manifest.hpp>

#include "modules/host_environment.hpp"
#include "modules/plugin_module.hpp"
#include "policy/policy_worker.hpp"
#include "sys/worker_wire.hpp"

namespace actionhost::host {
namespace {

struct VerdictState {
    HostEnvironment *env;
    const std::string *module;
    int32_t decision = AH_POLICY_ALLOW;
    int32_t risk = AH_RISK_UNKNOWN;
    std::string rule, reason;
};

void verdict_set(ah_policy_verdict_t *v, ah_policy_decision_t decision, ah_policy_risk_t risk, const char *rule,
                 const char *reason) {
    auto *st = static_cast<VerdictState *>(v->verdict_data);
    const bool valid = decision >= AH_POLICY_ALLOW && decision <= AH_POLICY_CONFIRM && risk >= AH_RISK_UNKNOWN &&
                       risk <= AH_RISK_HIGH;
    if (!valid) {
        st->env->log(AH_LOG_PLUGIN_MISBEHAVING, *st->module,
                     "answered decision " + std::to_string(decision) + " risk " + std::to_string(risk) +
                         ", outside the enums: read as deny");
        decision = AH_POLICY_DENY;
        if (risk < AH_RISK_UNKNOWN || risk > AH_RISK_HIGH) risk = AH_RISK_UNKNOWN;
    }
    st->decision = decision;
    st->risk = risk;
    st->rule = rule ? rule : "";
    st->reason = reason ? reason : "";
}

nlohmann::json judge(PluginModule &m, HostEnvironment &env, const nlohmann::json &req) {
    const std::string action_json = req.value("action_json", std::string());
    const std::string action = req.value("action", std::string()), session = req.value("session", std::string()),
                      cwd = req.value("cwd", std::string()), request_id = req.value("request_id", std::string());
    ah_policy_query_t q{};
    q.struct_size = sizeof q;
    q.action_json = ah_bytes_t{action_json.data(), action_json.size()};
    q.action = action.c_str();
    q.session = session.c_str();
    q.cwd = cwd.c_str();
    q.request_id = request_id.c_str();
    VerdictState st{&env, &m.manifest().name};
    ah_policy_verdict_t v{};
    v.struct_size = sizeof v;
    v.verdict_data = &st;
    v.set = &verdict_set;
    const ah_status_t rc = m.check_policy(q, v);
    if (rc != AH_OK) {
        const std::string err = m.take_error();
        st.decision = AH_POLICY_DENY;
        st.reason = "the module failed with status " + std::to_string(rc) + (err.empty() ? "" : ": " + err);
    }
    return {{"module", m.manifest().name}, {"decision", st.decision}, {"risk", st.risk}, {"rule", st.rule}, {"reason", st.reason}};
}

}  // namespace

int run_policy_worker(int fd) {
    // A host that dies closes its end of the socket: read_frame fails, the worker ends (it was also started
    // with PR_SET_PDEATHSIG, from common/process's lasting thread: sys/worker_spawn.hpp).
    auto init_text = read_frame(fd, std::nullopt);
    if (!init_text) return 1;
    const auto init = nlohmann::json::parse(init_text.value(), nullptr, false);
    if (!init.is_object()) return 1;
    HostEnvironment env(HostEnvironment::facts_from_worker_init(init), HostEnvironment::settings_from_worker_init(init));
    std::vector<std::unique_ptr<PluginModule>> mods;
    std::string error;
    const nlohmann::json manifests = init.contains("manifests") ? init["manifests"] : nlohmann::json::array();
    for (const auto &path : manifests) {
        if (!path.is_string()) { error = "a manifest path that is not a string"; break; }
        auto manifest = modules::read_manifest(path.get<std::string>());
        if (!manifest) { error = manifest.error().message; break; }
        auto loaded = PluginModule::load(manifest.value(), env);
        if (!loaded) { error = loaded.error().message; break; }
        mods.push_back(std::move(loaded).value());
    }
    if (!write_frame(fd, common::dump_json(error.empty() ? nlohmann::json{{"ok", true}}
                                                         : nlohmann::json{{"ok", false}, {"error", error}})) ||
        !error.empty())
        return 1;
    for (;;) {
        auto req_text = read_frame(fd, std::nullopt);
        if (!req_text) break;  // the host closed the socket: done
        const auto req = nlohmann::json::parse(req_text.value(), nullptr, false);
        nlohmann::json decisions = nlohmann::json::array();
        if (req.is_object())
            for (auto &m : mods) {
                decisions.push_back(judge(*m, env, req));
                if (decisions.back()["decision"] == AH_POLICY_DENY) break;  // the first denial decides
            }
        if (!write_frame(fd, common::dump_json({{"decisions", decisions}}))) break;
    }
    mods.clear();
    return 0;
}

}  // namespace actionhost::host
