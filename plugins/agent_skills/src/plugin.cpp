// The agent_skills plugin module: binds the AgentSkillsService to the host's C ABI.
#include <memory>

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
        service_ = std::make_unique<AgentSkillsService>(info.working_dir != nullptr ? info.working_dir : "", PathPolicy(roots));
        // ACTIONHOST_EDITOR_FSYNC=0|false: skip the fsync before the rename (still atomic against crashes
        // of the process, not against power loss) — an fsync costs a journal commit on every edit.
        const std::string fsync = host().config("ACTIONHOST_EDITOR_FSYNC").value_or("1");
        service_->editor().set_durable_writes(!(fsync == "0" || fsync == "false" || fsync == "False"));
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
