// Git user config, repository specs, provider tokens, clone and init (git_workspace.hpp).
#include <algorithm>
#include <actionhost/common/text.hpp>
#include <optional>
#include <stdexcept>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/git_workspace.hpp"
#include "actionhost/client/runtime.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "actionhost/client/shell_quote.hpp"

namespace actionhost::client {

namespace {


// "scheme://host[:port]" of a URL (userinfo dropped, host lower-cased), "" for URLs without "://".
std::string origin_of(const std::string &url) {
    auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return "";
    auto authority_end = url.find('/', scheme_end + 3);
    std::string authority = url.substr(scheme_end + 3, authority_end == std::string::npos ? std::string::npos : authority_end - scheme_end - 3);
    auto at = authority.rfind('@');
    if (at != std::string::npos) authority = authority.substr(at + 1);
    return actionhost::common::ascii_lower(url.substr(0, scheme_end)) + "://" + actionhost::common::ascii_lower(authority);
}

void check_branch_name(const std::string &b) {
    bool bad = b.empty() || b[0] == '-' || b[0] == '/' || b.back() == '/' || b.back() == '.' ||
               b.find("..") != std::string::npos || b.find("@{") != std::string::npos || b == "@" ||
               (b.size() >= 5 && b.compare(b.size() - 5, 5, ".lock") == 0);
    for (unsigned char c : b)
        if (c <= 0x20 || c == 0x7f || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\') bad = true;
    if (bad) throw std::invalid_argument("Invalid git branch name '" + b + "'");
}

bool is_owner_repo(const std::string &s) {
    auto slash = s.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() || s.find('/', slash + 1) != std::string::npos) return false;
    if (s[0] == '.' || s.find(':') != std::string::npos) return false;
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/'; });
}

std::string trim_newlines(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}

// A git config value in double quotes, escaped as git itself writes them; nullopt for control
// characters git's parser would not read back (only \t and \n have escapes).
std::optional<std::string> git_config_value(const std::string &value) {
    std::string out = "\"";
    for (unsigned char c : value) {
        if (c == '\\' || c == '"') out += '\\', out += static_cast<char>(c);
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == 0x7f) return std::nullopt;
        else out += static_cast<char>(c);
    }
    return out + "\"";
}

}  // namespace

void configure_git_user(WireClient &wire, const std::string &name, const std::string &email) {
    std::string with_git = "git config --global user.name " + bash_quote(name) + " && git config --global user.email " + bash_quote(email);
    // A fresh sandbox has no global git config: then the file is written with bash builtins alone, as
    // `git config --global` would create it, instead of two git processes (~8 ms each here, most of
    // a sandbox's start). A ~/.gitconfig that already holds exactly that (a later start in the same
    // home: local runtimes, warm pools, kept containers) is left as it is, read with `read` alone. Any
    // other existing global config (or GIT_CONFIG_GLOBAL) is left to git to edit.
    std::string command = with_git;
    ShellOptions in_session;
    auto quoted_name = git_config_value(name), quoted_email = git_config_value(email);
    if (quoted_name && quoted_email) {
        const std::string file = bash_quote("[user]\n\tname = " + *quoted_name + "\n\temail = " + *quoted_email + "\n");
        command = "if [ -n \"${GIT_CONFIG_GLOBAL+x}\" ]; then " + with_git + "; "
                  "elif [ ! -e ~/.gitconfig ] && [ ! -e \"${XDG_CONFIG_HOME:-$HOME/.config}/git/config\" ]; then "
                  "printf '%s' " + file + " > ~/.gitconfig; "
                  "elif [ -f ~/.gitconfig ] && IFS= read -r -d '' __ah_gitconfig < ~/.gitconfig; "
                  "[ \"${__ah_gitconfig-}\" = " + file + " ]; then unset __ah_gitconfig; "
                  "else unset __ah_gitconfig; " + with_git + "; fi";
        // Builtins only: the agent's shell runs them without a fork (a static command is a `bash -c`),
        // as OpenHands runs its git config in that shell too.
        in_session.is_static = false;
    }
    ShellResult r = run_hidden(wire, command, in_session);
    if (r.exit_code != 0) throw RuntimeError("git config of the user failed (exit code " + std::to_string(r.exit_code) + "): " + r.output);
}

RepoSpec parse_repo_spec(const std::string &spec) {
    if (spec.empty()) throw std::invalid_argument("An empty repository was given");
    size_t from = 0;
    if (auto scheme = spec.find("://"); scheme != std::string::npos) {
        auto slash = spec.find('/', scheme + 3);
        from = slash == std::string::npos ? spec.size() : slash;
    } else if (auto colon = spec.find(':'); colon != std::string::npos && colon < spec.find('/')) {
        from = colon + 1;  // user@host:path
    }
    RepoSpec r;
    r.url = spec;
    if (auto at = spec.find('@', from); at != std::string::npos) {
        r.url = spec.substr(0, at);
        r.branch = spec.substr(at + 1);
        check_branch_name(r.branch);
    }
    if (r.url.empty()) throw std::invalid_argument("No repository URL in '" + spec + "'");
    if (is_owner_repo(r.url)) r.url = "https://github.com/" + r.url + ".git";  // OpenHands' default provider
    std::string path = r.url;
    while (!path.empty() && path.back() == '/') path.pop_back();
    auto cut = path.find_last_of("/:");
    std::string name = cut == std::string::npos ? path : path.substr(cut + 1);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0) name.resize(name.size() - 4);
    if (name.empty() || name == "." || name == "..")
        throw std::invalid_argument("Cannot tell the repository's directory name from '" + r.url + "'");
    r.dir_name = name;
    return r;
}

std::vector<GitToken> git_tokens_from_env(const Environment &env) {
    struct Provider {
        const char *name, *token_var, *host_var, *default_host, *user;
    };
    static const Provider providers[] = {{"github", "GITHUB_TOKEN", "GITHUB_HOST", "github.com", "x-access-token"},
                                         {"gitlab", "GITLAB_TOKEN", "GITLAB_HOST", "gitlab.com", "oauth2"},
                                         {"bitbucket", "BITBUCKET_TOKEN", "BITBUCKET_HOST", "bitbucket.org", "x-token-auth"}};
    std::vector<GitToken> out;
    for (const auto &p : providers) {
        auto t = env.find(p.token_var);
        if (t == env.end() || t->second.empty()) continue;
        std::string host = p.default_host;
        if (auto h = env.find(p.host_var); h != env.end() && !h->second.empty()) host = h->second;
        if (host.find("://") == std::string::npos) host = "https://" + host;
        while (!host.empty() && host.back() == '/') host.pop_back();
        GitToken tok{p.name, origin_of(host + "/"), p.user, t->second};
        // Bitbucket app passwords come as "user:password" (OpenHands puts them in the URL as they are).
        if (std::string(p.name) == "bitbucket" && t->second.find(':') != std::string::npos) {
            tok.username = t->second.substr(0, t->second.find(':'));
            tok.password = t->second.substr(t->second.find(':') + 1);
        }
        out.push_back(tok);
    }
    return out;
}

namespace {

const char *token_variable(const std::string &provider) {
    if (provider == "github") return "GITHUB_TOKEN";
    if (provider == "gitlab") return "GITLAB_TOKEN";
    return "BITBUCKET_TOKEN";
}

}  // namespace

Environment git_token_env(const std::vector<GitToken> &tokens) {
    Environment env;
    int n = 0;
    for (const auto &t : tokens) {
        const std::string var = token_variable(t.provider);
        env[var] = t.provider == "bitbucket" && t.username != "x-token-auth" ? t.username + ":" + t.password : t.password;
        // A Bitbucket "user:password" app password is split at the first colon, as git_tokens_from_env does.
        const std::string split = t.provider == "bitbucket" ? "case \"$t\" in *:*) u=\"${t%%:*}\"; t=\"${t#*:}\";; esac; " : "";
        const std::string helper = "!f() { test \"$1\" = get || return 0; t=\"$" + var + "\"; u=" +
                                   (t.provider == "bitbucket" ? std::string("x-token-auth") : t.username) + "; " + split +
                                   "printf 'username=%s\\npassword=%s\\n' \"$u\" \"$t\"; }; f";
        env["GIT_CONFIG_KEY_" + std::to_string(n)] = "credential." + t.base_url + ".helper";
        env["GIT_CONFIG_VALUE_" + std::to_string(n)] = helper;
        ++n;
    }
    if (n > 0) env["GIT_CONFIG_COUNT"] = std::to_string(n);
    return env;
}

nlohmann::json git_token_secrets(const std::vector<GitToken> &tokens, std::vector<std::string> *skipped) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto &t : tokens) {
        const std::string prefix = "https://";
        const std::string host = t.base_url.rfind(prefix, 0) == 0 ? t.base_url.substr(prefix.size()) : "";
        if (host.empty() || host.find_first_of(":/[") != std::string::npos) {
            if (skipped != nullptr)
                skipped->push_back(std::string(token_variable(t.provider)) + " is for " + t.base_url +
                                   ": the egress proxy adds secrets to https on port 443 only; it is not given to this sandbox");
            continue;
        }
        out[t.provider + "_token"] = {{"value", t.password}, {"hosts", nlohmann::json::array({host})}, {"username", t.username}};
    }
    return out;
}

std::optional<GitToken> token_for_url(const std::vector<GitToken> &tokens, const std::string &url) {
    std::string origin = origin_of(url);
    if (origin.empty()) return std::nullopt;
    for (const auto &t : tokens)
        if (t.base_url == origin) return t;
    return std::nullopt;
}

std::string clone_repo(WireClient &wire, const RepoSpec &spec, const std::string &workspace, const std::vector<GitToken> &tokens) {
    const std::string target = workspace + "/" + spec.dir_name;
    std::string credentials, cleanup;
    if (auto token = token_for_url(tokens, spec.url)) {
        // The token travels as an uploaded file (the upload body is in no command or log) into a 0700
        // directory, and git reads it through a helper that answers only for the token's host.
        ShellResult dir = run_hidden(wire, "d=$(mktemp -d) && chmod 700 \"$d\" && printf '%s' \"$d\"");
        std::string private_dir = trim_newlines(dir.output);
        if (dir.exit_code != 0 || private_dir.empty() || private_dir[0] != '/')
            throw RuntimeError("Cannot make a private directory in the sandbox for the git credentials: " + dir.output);
        wire.upload_bytes("token", token->password, private_dir);
        std::string helper = "!f() { test \"$1\" = get || return 0; printf 'username=%s\\npassword=%s\\n' " +
                             bash_quote(token->username) + " \"$(cat " + bash_quote(private_dir + "/token") + ")\"; }; f";
        // An empty credential.helper first drops configured helpers, so none of them can store the token.
        credentials = "-c credential.helper= -c " + bash_quote("credential." + token->base_url + ".helper=" + helper) + " ";
        cleanup = "rm -rf " + bash_quote(private_dir) + "; ";
    }
    std::string checkout = spec.branch.empty() ? "git checkout -q -b openhands-workspace-" + random_hex(4)
                                               : "git checkout -q " + bash_quote(spec.branch);
    std::string cmd = "GIT_TERMINAL_PROMPT=0 git " + credentials + "clone -q -- " + bash_quote(spec.url) + " " + bash_quote(target) +
                      " 2>&1; rc=$?; " + cleanup + "[ $rc -eq 0 ] && cd " + bash_quote(target) + " && " + checkout;
    ShellOptions opts;
    opts.timeout_s = 600;
    ShellResult r = run_hidden(wire, cmd, opts);
    if (r.exit_code != 0) throw RuntimeError("Cannot clone " + spec.url + " into " + target + ": " + trim_newlines(r.output));
    return target;
}

void init_repo(WireClient &wire, const std::string &workspace) {
    ShellResult r = run_hidden(wire, "cd " + bash_quote(workspace) + " && git init -q && git config --global --add safe.directory " +
                                         bash_quote(workspace));
    if (r.exit_code != 0) throw RuntimeError("Cannot initialise a git repository in " + workspace + ": " + trim_newlines(r.output));
}

}  // namespace actionhost::client
