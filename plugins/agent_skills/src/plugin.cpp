// The agent_skills plugin module: binds the AgentSkillsService to the host's C ABI.
#include <memory>
#include <optional>
#include <string>

#include "actionhost/plugin.hpp"
#include "actions.hpp"

namespace actionhost::agent_skills {

class AgentSkillsPlugin : public sdk::Plugin {
  public:
    using sdk::Plugin::Plugin;

    ah_status_t init() override {
        const auto &info = host().info();
        // ACTIONHOST_EDITOR_ROOTS (colon-separated) confines the editor; unset = the whole file system,
        // as OpenHands' editor allows.
        const std::string roots = host().config("ACTIONHOST_EDITOR_ROOTS").value_or("");
        service_ = std::make_unique<AgentSkillsService>(info.working_dir != nullptr ? info.working_dir : "", editor_path_policy(roots));
        // ACTIONHOST_EDITOR_FSYNC=1 adds an fsync before the rename (durable across power loss); off by
        // default, as in OpenHands: an fsync costs a journal commit on every edit, and without it an edit
        // is still never half-written (temp file + rename).
        const std::optional<std::string> fsync = host().config("ACTIONHOST_EDITOR_FSYNC");
        service_->editor().set_durable_writes(editor_fsync_enabled(fsync ? fsync->c_str() : nullptr));
        return AH_OK;
    }

    ah_status_t execute(sdk::Call &call) override {
        call.reply(service_->execute(call.action_json(), std::string(call.session()), std::string(call.cwd())));
        return AH_OK;
    }

  private:
    std::unique_ptr<AgentSkillsService> service_;
};

}  // namespace actionhost::agent_skills

ACTIONHOST_PLUGIN(actionhost::agent_skills::AgentSkillsPlugin, "agent_skills", "0.1.0")
