#include "workspace_commands.hpp"

#include <actionhost/client/errors.hpp>
#include <actionhost/client/file_copy.hpp>
#include <actionhost/client/git_workspace.hpp>
#include <actionhost/client/microagents.hpp>
#include <actionhost/common/text.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <actionhost/common/json_write.hpp>

namespace ahctl {

using namespace actionhost::client;
using nlohmann::json;
using actionhost::common::printable_name;
using actionhost::common::printable_for_terminal;
using actionhost::common::parse_byte_size;

namespace {

// A command's `--name VALUE` option (cli.cpp parsed it), "" when not given.
std::string option_value(const Options &o, const std::string &name) {
    auto it = o.named.find(name);
    return it == o.named.end() || it->second.empty() ? "" : it->second[0];
}

std::string in_workspace(Runtime &rt, const std::string &path) {
    if (!path.empty() && path[0] == '/') return path;
    const std::string &ws = rt.workspace_dir();
    return path.empty() || path == "." ? ws : ws + "/" + path;
}

}  // namespace

bool sandbox_side(const std::string &arg, std::string *path) {
    static const std::string prefix = "sandbox:";
    if (arg.rfind(prefix, 0) != 0) return false;
    *path = arg.substr(prefix.size());
    return true;
}

int cmd_env(const Options &o, OpenRuntime open) {
    if (o.args.empty() || o.args[0] != "set") throw UsageError("usage: ahctl env set KEY=VALUE... (see ahctl env --help)");
    if (o.args.size() < 2) throw UsageError("env set needs at least one KEY=VALUE");
    Environment vars;
    for (size_t i = 1; i < o.args.size(); ++i) {
        auto eq = o.args[i].find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("env set needs KEY=VALUE, got: " + o.args[i]);
        vars[o.args[i].substr(0, eq)] = o.args[i].substr(eq + 1);
    }
    auto rt = open(o, false);
    try {
        rt->add_env_vars(vars);
    } catch (const std::invalid_argument &e) {
        throw UsageError(e.what());
    }
    rt->close();
    return kOk;
}

int cmd_cp(const Options &o, OpenRuntime open) {
    if (o.args.size() != 2) throw UsageError("cp needs SRC and DST (see ahctl cp --help)");
    std::string src_path, dst_path;
    bool src_in = sandbox_side(o.args[0], &src_path), dst_in = sandbox_side(o.args[1], &dst_path);
    if (src_in == dst_in)
        throw UsageError("cp copies between this machine and the sandbox: write exactly one side as sandbox:PATH");
    if (src_in && src_path.empty()) throw UsageError("sandbox: needs a path");
    CopyOptions copy;
    if (const std::string max = option_value(o, "--max-size"); !max.empty()) {
        const auto bytes = parse_byte_size(max);
        if (!bytes) throw UsageError("--max-size needs a size such as 4g, 512m or 1048576, got: " + max);
        copy.max_bytes = *bytes;
    }
    std::vector<std::string> skipped;
    copy.skipped = &skipped;
    std::error_code ec;
    if (dst_in && !std::filesystem::exists(std::filesystem::symlink_status(o.args[0], ec)))
        throw UsageError("no such file or directory: " + o.args[0]);
    auto rt = open(o, false);
    std::vector<std::string> written;
    if (dst_in) {
        copy_to(rt->wire(), o.args[0], in_workspace(*rt, dst_path), false, copy);
    } else {
        const std::string from = in_workspace(*rt, src_path);
        try {
            written = copy_from_into(rt->wire(), from, o.args[1], copy);
        } catch (const WireError &e) {
            // The host answers a missing path with 404 (wrapped in a 500 by some hosts): say it plainly.
            if (e.status() != 404 && std::string(e.what()).find("404") == std::string::npos) throw;
            rt->close();
            throw std::runtime_error("no such file or directory in the sandbox: " + from);
        }
    }
    rt->close();
    // FIFOs, sockets and devices are never opened, on either side: each is named on stderr.
    for (const auto &note : skipped) std::cerr << "[ahctl] skipped " << printable_name(note) << "\n";
    if (o.json && !dst_in) std::cout << actionhost::common::dump_json(json(written)) << "\n";
    return kOk;
}

int cmd_git(const Options &o, OpenRuntime open) {
    if (o.args.empty()) throw UsageError("usage: ahctl git changes|diff|clone|init (see ahctl git --help)");
    const std::string sub = o.args[0];
    const std::string cwd = option_value(o, "--cwd");
    const std::vector<std::string> rest(o.args.begin() + 1, o.args.end());
    if (sub == "changes") {
        if (!rest.empty()) throw UsageError("git changes takes no arguments but --cwd DIR");
        auto rt = open(o, false);
        auto changes = git_changes(rt->wire(), in_workspace(*rt, cwd));
        rt->close();
        if (o.json) {
            json out = json::array();
            for (const auto &c : changes) out.push_back({{"status", c.status}, {"path", c.path}});
            std::cout << actionhost::common::dump_json(out) << "\n";
        } else {
            for (const auto &c : changes) std::cout << printable_name(c.status) << "\t" << printable_name(c.path) << "\n";
        }
        return kOk;
    }
    if (sub == "diff") {
        if (rest.size() != 1) throw UsageError("git diff needs one PATH");
        auto rt = open(o, false);
        GitDiff d = git_diff(rt->wire(), rest[0], in_workspace(*rt, cwd));
        rt->close();
        std::cout << actionhost::common::dump_json(json({{"original", d.original}, {"modified", d.modified}})) << "\n";
        return kOk;
    }
    if (sub == "clone") {
        if (rest.size() != 1) throw UsageError("git clone needs one URL[@BRANCH]");
        try {
            parse_repo_spec(rest[0]);
        } catch (const std::invalid_argument &e) {
            throw UsageError(e.what());
        }
        auto rt = open(o, false);
        std::string path = rt->clone_repo(rest[0]);
        rt->close();
        std::cout << printable_name(path) << "\n";
        return kOk;
    }
    if (sub == "init") {
        auto rt = open(o, false);
        init_repo(rt->wire(), in_workspace(*rt, cwd));
        rt->close();
        return kOk;
    }
    throw UsageError("unknown git command '" + sub + "' (changes, diff, clone, init)");
}

int cmd_microagents(const Options &o, OpenRuntime open) {
    const std::string root = option_value(o, "--root");
    if (!o.args.empty()) throw UsageError("microagents takes no arguments but --root DIR");
    auto rt = open(o, false);
    auto agents = read_microagents(rt->wire(), in_workspace(*rt, root));
    rt->close();
    if (o.json) {
        json out = json::array();
        for (const auto &m : agents) out.push_back({{"name", m.name}, {"path", m.path}, {"content", m.content}});
        std::cout << actionhost::common::dump_json(out) << "\n";
    } else {
        for (const auto &m : agents) std::cout << printable_name(m.name) << "\t" << printable_name(m.path) << "\n";
    }
    return kOk;
}

}  // namespace ahctl
