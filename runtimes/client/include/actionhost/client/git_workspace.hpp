// Git in the sandbox, as OpenHands' base Runtime offers it to every backend (openhands/runtime/base.py):
// the user name/email from [core], cloning (or initialising) a repository into the workspace with a git
// provider token that never appears in a command, and the change list / per-file diff of the workspace's
// repositories (OpenHands' get_git_changes / get_git_diff).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actionhost/client/config.hpp"
#include "actionhost/client/wire_client.hpp"

namespace actionhost::client {

// `git config --global user.name <n> && git config --global user.email <e>` (quoted safely). Throws
// RuntimeError with git's output when it failed (OpenHands only warns then, and so does the runtime).
void configure_git_user(WireClient &wire, const std::string &name, const std::string &email);

// A repository to clone: "URL[@branch]". URL is any git URL (https://, http://, ssh://, file://,
// user@host:path, a path) or GitHub's "owner/repo" shorthand. The '@' that starts the branch is the
// first one after the URL's authority (scheme://user@host) or, for user@host:path, after the ':'.
struct RepoSpec {
    std::string url;
    std::string branch;  // "" → a new branch openhands-workspace-<random>, as OpenHands
    std::string dir_name;  // directory created in the workspace: the URL's last component minus .git
};
// Throws std::invalid_argument for an empty or unusable spec or branch name.
RepoSpec parse_repo_spec(const std::string &spec);

// A git provider token and the host it is for. Tokens come from GITHUB_TOKEN, GITLAB_TOKEN and
// BITBUCKET_TOKEN (hosts github.com, gitlab.com, bitbucket.org, or GITHUB_HOST / GITLAB_HOST /
// BITBUCKET_HOST for self-hosted ones; a host without a scheme means https://).
struct GitToken {
    std::string provider;   // github | gitlab | bitbucket
    std::string base_url;   // scheme://host[:port] the token is for
    std::string username;   // x-access-token | oauth2 | x-token-auth (or the user of a "user:pass" token)
    std::string password;
};
std::vector<GitToken> git_tokens_from_env(const Environment &env);
// What makes the tokens usable inside the sandbox (exported there by default, as OpenHands exports its
// provider tokens; `[sandbox] export_git_tokens = false` opts out): each token in its provider's
// variable (GITHUB_TOKEN, GITLAB_TOKEN, BITBUCKET_TOKEN) so `gh` and agents' own URLs find it, and for
// plain `git`, a credential helper scoped to the token's host given as GIT_CONFIG_COUNT /
// GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n>. The helper holds no secret: it prints the variable when git
// asks, so the token is in no config file and a later `export GITHUB_TOKEN=...` is what git uses.
Environment git_token_env(const std::vector<GitToken> &tokens);
// The tokens as egress secrets (`sandbox.secrets` entries, "github_token" = {value, hosts, username}) for a
// sandbox that keeps them outside (its egress proxy adds them to HTTPS requests for their host): those
// for an https:// host on the default port; the others (plain http, another port) are left out, with a
// line each in `skipped`.
nlohmann::json git_token_secrets(const std::vector<GitToken> &tokens, std::vector<std::string> *skipped);
// The token whose base_url is the scheme://host[:port] of `url`, if any.
std::optional<GitToken> token_for_url(const std::vector<GitToken> &tokens, const std::string &url);

// Clones `spec` into <workspace>/<dir_name> and checks out its branch (or creates
// openhands-workspace-<random>). The token of the URL's host, when there is one, reaches git through
// a file uploaded into a private temporary directory and read by a credential helper scoped to that
// host; the directory is removed by the same command. The token is in no command, observation, shell
// history, log or .git/config. Returns the repository's path in the sandbox. Throws RuntimeError.
std::string clone_repo(WireClient &wire, const RepoSpec &spec, const std::string &workspace,
                       const std::vector<GitToken> &tokens);
// `git init` in the workspace plus `git config --global --add safe.directory <workspace>` (OpenHands'
// init_git_in_empty_workspace). Throws RuntimeError.
void init_repo(WireClient &wire, const std::string &workspace);

// One changed file: status M, A, D or U and its path relative to `cwd` (spec: get_git_changes).
struct GitChange {
    std::string status;
    std::string path;
};
// Changes of the repository at `cwd` and of every repository directly below it, each against
// origin/<branch>, else the merge base with origin's default branch, else that branch, else the empty
// tree; untracked files count as A, renames as D + A, copies as A. Sorted by path. Throws RuntimeError.
std::vector<GitChange> git_changes(WireClient &wire, const std::string &cwd);

// The original (at the same reference) and modified text of one file (spec: get_git_diff); lines
// joined by \n without a final newline, as OpenHands returns them. A deleted file has modified "", a
// new one original "". Throws RuntimeError ("no_repository", "file_to_large" over 1 MB, ...).
struct GitDiff {
    std::string original;
    std::string modified;
};
GitDiff git_diff(WireClient &wire, const std::string &path, const std::string &cwd);

}  // namespace actionhost::client
