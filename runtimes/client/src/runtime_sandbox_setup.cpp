// The first connection to a new sandbox: OpenHands' setup_initial_env plus its clone_or_init_repo.
#include <stdexcept>

#include "actionhost/client/git_workspace.hpp"
#include "actionhost/client/sandbox_env.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "runtime_impl.hpp"

namespace actionhost::client {

void Runtime::Impl::setup_sandbox() {
    const Config &c = options.config;
    client::add_env_vars(*wire, initial_env(), jupyter());
    client::add_env_vars(*wire, startup_env_vars(c), jupyter());
    if (runtime_name != "cli") {
        try {
            configure_git_user(*wire, c.get_string("core.git_user_name", "openhands"),
                               c.get_string("core.git_user_email", "openhands@all-hands.dev"));
        } catch (const RuntimeError &e) {
            log(common::LogLevel::Warning, e.what());
        }
    }
    std::string repo = c.get_string("sandbox.selected_repo", "");
    if (!repo.empty()) {
        status(AH_STATUS_SETTING_UP_WORKSPACE, "cloning " + repo);
        RepoSpec spec;
        try {
            spec = parse_repo_spec(repo);
        } catch (const std::invalid_argument &e) {
            throw RuntimeError(e.what());
        }
        client::clone_repo(*wire, spec, workspace_dir(), clone_tokens());
    } else if (c.get_bool("core.init_git_in_empty_workspace")) {
        init_repo(*wire, workspace_dir());
    }
}

std::vector<GitToken> Runtime::Impl::clone_tokens() const {
    return git_tokens_outside ? std::vector<GitToken>{} : git_tokens_from_env(current_environment());
}

const std::string &Runtime::Impl::workspace_dir() {
    if (workspace.empty()) workspace = sandbox_working_dir(*wire);
    return workspace;
}

}  // namespace actionhost::client
