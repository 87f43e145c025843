// What runs in a connected sandbox: actions (with the backend's recovery verdicts), variables, repos.
#include <actionhost/ext/runtime_recovery.h>

#include <stdexcept>

#include "actionhost/client/git_workspace.hpp"
#include "actionhost/client/sandbox_env.hpp"
#include "runtime_impl.hpp"

namespace actionhost::client {

using nlohmann::json;

WireClient &Runtime::wire() {
    if (!impl_->wire) throw RuntimeError("Runtime is not connected");
    return *impl_->wire;
}

json Runtime::execute(const json &action, const std::string &session) { return execute(wire(), action, session); }

std::unique_ptr<WireClient> Runtime::open_wire() {
    Impl &s = *impl_;
    if (!s.wire) throw RuntimeError("Runtime is not connected");
    return std::make_unique<WireClient>(s.url, s.endpoint_key, s.options.wire_policy);
}

json Runtime::execute(WireClient &wire, const json &action, const std::string &session, const LiveEventFn &on_event) {
    Impl &s = *impl_;
    auto *recovery = static_cast<const ah_ext_runtime_recovery_t *>(s.runtime->get_extension(s.runtime, AH_EXT_RUNTIME_RECOVERY));
    for (int attempt = 0;; ++attempt) {
        try {
            return on_event ? execute_following(wire, action, session, on_event) : wire.execute(action, session);
        } catch (const WireTimeout &) {
            throw;
        } catch (const WireError &e) {
            // The backend says what a sandbox error means (e.g. remote: 503 = paused, 404/502/504 = gone).
            if (!recovery || e.status() == 0) throw;
            int32_t verdict = recovery->on_sandbox_error(s.runtime, e.status());
            if (verdict == AH_RECOVERY_RETRY && attempt == 0) continue;
            if (verdict == AH_RECOVERY_REPORT) throw;
            std::string why = s.take_error(e.what());
            s.status(AH_STATUS_ERROR_RUNTIME_DISCONNECTED, why);
            throw RuntimeDisconnected("Runtime " + s.runtime_name + " disconnected: " + why, e.status(), e.detail());
        }
    }
}

void Runtime::add_env_vars(const Environment &vars) { client::add_env_vars(wire(), vars, impl_->jupyter()); }
bool Runtime::jupyter_loaded() const { return impl_->jupyter(); }
const std::string &Runtime::workspace_dir() {
    wire();
    return impl_->workspace_dir();
}
std::string Runtime::clone_repo(const std::string &spec) {
    RepoSpec parsed;
    try {
        parsed = parse_repo_spec(spec);
    } catch (const std::invalid_argument &e) {
        throw RuntimeError(e.what());
    }
    return client::clone_repo(wire(), parsed, workspace_dir(), impl_->clone_tokens());
}

}  // namespace actionhost::client
