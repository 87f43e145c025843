// The plugin's actions, independent of the C ABI so tests and the ctypes library can drive them:
//  - `edit` (impl_source "oh_aci"): the editor, answered as an OpenHands `edit` observation;
//  - `read` with impl_source "oh_aci" (routed here by the host): editor `view`, as a `read` observation;
//  - `agent_skill` (additive): {"name": "open_file", "args": {...}} → an `agent_skill` observation whose
//    content is what the skill prints (see docs/skills.md).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "editor.hpp"
#include "skills.hpp"

namespace actionhost::agent_skills {

class AgentSkillsService {
  public:
    AgentSkillsService(std::string workspace_root, PathPolicy policy);
    // `action_json`: the host's normalised envelope {"action":..,"args":{..}}. Returns the observation
    // JSON text. Never throws.
    std::string execute(std::string_view action_json, const std::string &session, const std::string &cwd);
    Editor &editor() { return editor_; }

  private:
    std::string edit(const nlohmann::json &args);
    std::string read(const nlohmann::json &args);
    std::string agent_skill(const nlohmann::json &args, const std::string &session, const std::string &cwd);

    std::string workspace_root_;
    Editor editor_;
    std::mutex states_mu_;
    std::map<std::string, SkillState> states_;  // per session; a session's actions never overlap
};

}  // namespace actionhost::agent_skills
