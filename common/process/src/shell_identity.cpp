#include "actionhost/common/process/shell_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include <actionhost/common/user_entry.hpp>

extern char **environ;

namespace actionhost::common {

namespace {

// Variables never handed to the shell: the API key guards the host from the sandbox; the prompt
// variables are ours to set.
bool withheld(const std::string &key) {
    return key == "SESSION_API_KEY" || key == "PROMPT_COMMAND" || key == "PS1" || key == "PS2" ||
           key == "BASH_ENV" || key == "ENV";
}

std::map<std::string, std::string> current_environment() {
    std::map<std::string, std::string> env;
    for (char **e = environ; e && *e; ++e) {
        const char *eq = std::strchr(*e, '=');
        if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
    }
    return env;
}

std::vector<std::string> flatten(const std::map<std::string, std::string> &env) {
    std::vector<std::string> out;
    for (const auto &[k, v] : env) out.push_back(k + "=" + v);
    return out;
}

}  // namespace

namespace {

// Whether `who` holds the permission `bits` (one of 1 = x, 2 = w, 4 = r) on a file of status `st`, by its
// mode bits as the kernel checks them: owner's, else group's (its gid or a supplementary group), else
// other's. Root may search any directory and execute any file with an execute bit.
bool permitted(const struct stat &st, const ShellIdentity &who, mode_t bits) {
    if (who.uid == 0) return S_ISDIR(st.st_mode) || bits != 1 || (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
    if (st.st_uid == who.uid) return (st.st_mode & (bits << 6)) != 0;
    const bool in_group = st.st_gid == who.gid ||
                          std::find(who.groups.begin(), who.groups.end(), st.st_gid) != who.groups.end();
    if (in_group) return (st.st_mode & (bits << 3)) != 0;
    return (st.st_mode & bits) != 0;
}

// Whether `who` may execute the regular file at `path`: the file's execute bit for it and the search bit
// of every directory on the way there.
bool runnable_by(const std::string &path, const ShellIdentity &who) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !permitted(st, who, 1)) return false;
    for (size_t slash = path.find('/', path[0] == '/' ? 1 : 0); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        struct stat dir {};
        if (stat(path.substr(0, slash).c_str(), &dir) != 0 || !permitted(dir, who, 1)) return false;
    }
    return path[0] == '/' || (stat(".", &st) == 0 && permitted(st, who, 1));
}

}  // namespace

std::string find_on_path(const std::string &name, const std::string &path_list, const PathSearch &how) {
    const bool as_other_user = how.as != nullptr && how.as->switch_user;
    size_t start = 0;
    while (start <= path_list.size()) {
        size_t end = path_list.find(':', start);
        if (end == std::string::npos) end = path_list.size();
        std::string dir = path_list.substr(start, end - start);
        if (dir.empty()) dir = ".";
        const std::string candidate = dir + "/" + name;
        const std::string checked = dir[0] != '/' && !how.relative_to.empty() ? how.relative_to + "/" + candidate : candidate;
        struct stat st {};
        if (as_other_user ? runnable_by(checked, *how.as)
                          : stat(checked.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(checked.c_str(), X_OK) == 0)
            return candidate;  // a directory of that name is not a program
        start = end + 1;
    }
    return "";
}

std::string find_program(const std::string &name, const std::string &fallback) {
    auto absolute_entries = [](std::string_view list) {
        std::string out;
        for (size_t start = 0; start <= list.size();) {
            size_t end = list.find(':', start);
            if (end == std::string_view::npos) end = list.size();
            if (const std::string_view dir = list.substr(start, end - start); !dir.empty() && dir[0] == '/')
                out.append(out.empty() ? "" : ":").append(dir);
            start = end + 1;
        }
        return out;
    };
    const char *path = std::getenv("PATH");
    std::string dirs = absolute_entries(path != nullptr ? path : "");
    if (dirs.empty()) dirs = absolute_entries(fallback);
    return dirs.empty() ? "" : find_on_path(name, dirs);
}

ShellIdentity resolve_shell_identity(const std::string &username) {
    ShellIdentity id;
    std::map<std::string, std::string> env = current_environment();
    for (auto it = env.begin(); it != env.end();) it = withheld(it->first) ? env.erase(it) : std::next(it);
    // tmux gives OpenHands' shell a terminal type; ours is a terminal too (1000x1000, like its pane).
    env["TERM"] = "xterm";

    const uid_t me = geteuid();
    const std::optional<UserEntry> self = user_by_uid(me);
    const std::string my_name = self ? self->name : std::to_string(me);
    id.uid = me;
    id.gid = getegid();
    id.username = my_name;
    id.home = self ? self->home : "/";
    id.login_shell = self ? self->shell : "";

    if (username.empty() || username == my_name) {
        id.note = "bash sessions run as the host's user " + my_name;
        id.env = flatten(env);
        return id;
    }
    const std::optional<UserEntry> pw = user_by_name(username);
    if (me != 0) {
        id.note = "bash sessions run as " + my_name + ", not " + username + ": the host is not root and cannot switch user";
        id.env = flatten(env);
        return id;
    }
    if (!pw) {
        id.note = "bash sessions run as " + my_name + ": user " + username +
                  " does not exist (the host creates it before starting plugins when it can)";
        id.env = flatten(env);
        return id;
    }
    id.switch_user = true;
    id.uid = pw->uid;
    id.gid = pw->gid;
    id.username = pw->name;
    id.home = pw->home.empty() ? "/" : pw->home;
    id.login_shell = pw->shell;
    id.groups = common::group_list(*pw);
    id.login_profile = true;

    // `su -`: a fresh login environment; the terminal type and locale survive.
    std::map<std::string, std::string> login;
    for (const char *keep : {"TERM", "LANG", "LC_ALL", "LANGUAGE"})
        if (env.count(keep)) login[keep] = env[keep];
    login["HOME"] = id.home;
    login["USER"] = id.username;
    login["LOGNAME"] = id.username;
    login["SHELL"] = pw->shell.empty() ? "/bin/bash" : pw->shell;
    login["PATH"] = pw->uid == 0 ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
                                    : "/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games";
    id.env = flatten(login);
    id.note = "bash sessions switch to user " + id.username + " (uid " + std::to_string(id.uid) + ")";
    return id;
}

}  // namespace actionhost::common
