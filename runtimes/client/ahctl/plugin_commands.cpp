#include "plugin_commands.hpp"

#include "commands.hpp"

#include <actionhost/client/plugins.hpp>
#include <actionhost/common/json_write.hpp>
#include <actionhost/common/text.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ahctl {

using namespace actionhost::client;
using actionhost::common::printable_name;
using nlohmann::json;

namespace {

// A command option's one value ("" when not given).
std::string named(const Options &o, const std::string &name) {
    const auto it = o.named.find(name);
    return it == o.named.end() || it->second.empty() ? "" : it->second.front();
}

std::string plugin_dir(const Options &o) {
    const std::string dir = named(o, "--dir");
    return dir.empty() ? default_plugin_dir(o.install_dir.value_or("")) : dir;
}

// "a.pem,b.pem" → {"a.pem", "b.pem"}
std::vector<std::string> key_files(const std::string &list) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= list.size()) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) out.push_back(list.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

void only(const Options &o, const std::string &sub, std::initializer_list<const char *> allowed) {
    for (const auto &[name, _] : o.named)
        if (std::find_if(allowed.begin(), allowed.end(), [&](const char *a) { return name == a; }) == allowed.end())
            throw UsageError(name + " is not an option of ahctl plugin " + sub + " (see ahctl plugin --help)");
}

PluginProgress progress_of(const Options &o) {
    if (o.quiet) return {};
    return [](const std::string &line) { std::cerr << "[ahctl] " << actionhost::common::printable_for_terminal(line) << "\n"; };
}

json to_json(const InstalledPlugin &p) {
    return {{"name", p.name}, {"version", p.version}, {"abi_version", p.abi_version}, {"platform", p.platform}, {"dir", p.dir},
            {"reference", p.reference}, {"digest", p.digest}, {"signed_by", p.signed_by}};
}

// The plugins as --json prints them, one object each.
json to_json(const std::vector<InstalledPlugin> &plugins) {
    json out = json::array();
    for (const auto &p : plugins) out.push_back(to_json(p));
    return out;
}

// What install did, one line per plugin.
void print_installed(const std::vector<InstalledPlugin> &installed) {
    for (const auto &p : installed)
        std::cout << "installed " << printable_name(p.name) << " " << printable_name(p.version) << " in " << printable_name(p.dir)
                  << (p.signed_by.empty() ? "" : " (signed by " + p.signed_by + ")") << "\n";
}

int push(const Options &o) {
    only(o, "push", {"--sign"});
    if (o.args.size() != 3) throw UsageError("usage: ahctl plugin push DIR REGISTRY/PATH[:TAG] [--sign KEY.pem]");
    const PluginPushResult r = push_plugin(load_config(o, current_environment()), {o.args[1], o.args[2], named(o, "--sign")}, progress_of(o));
    if (o.json) {
        std::cout << actionhost::common::dump_json(json{{"reference", r.reference}, {"digest", r.digest}, {"name", r.name}, {"version", r.version},
                                                         {"abi_version", r.abi_version}, {"platform", r.platform}, {"signed_by", r.key_id}}, 2)
                  << "\n";
        return kOk;
    }
    std::cout << printable_name(r.reference) << " " << r.digest << (r.key_id.empty() ? "" : " signed by " + r.key_id) << "\n";
    return kOk;
}

// `ahctl --image BASE plugin install REF --as NAME`: into a new image of the store rather than a directory.
int install_into_image(const Options &o, const PluginInstallOptions &options) {
    if (!o.image) throw UsageError("--as NAME needs --image BASE: the image the plugin is added to (ahctl --image BASE plugin install REF --as NAME)");
    if (o.named.count("--dir")) throw UsageError("--as and --dir exclude each other: a plugin goes into an image or into a directory");
    const std::string name = named(o, "--as");
    if (name.empty()) throw UsageError("--as needs the new image's name");
    const PluginImageResult r = install_plugin_into_image(load_config(o, current_environment()), options, *o.image, name, progress_of(o));
    if (o.json) {
        std::cout << actionhost::common::dump_json(json{{"image", r.image}, {"digest", r.digest}, {"plugins", to_json(r.installed)}}, 2) << "\n";
        return kOk;
    }
    print_installed(r.installed);
    std::cout << "image " << printable_name(r.image) << " " << r.digest << " (" << printable_name(*o.image) << " with the plugin)\n";
    return kOk;
}

int install(const Options &o) {
    only(o, "install", {"--dir", "--require-signature", "--as"});
    if (o.args.size() != 2)
        throw UsageError("usage: ahctl plugin install REGISTRY/PATH:TAG [--dir DIR | --as IMAGE] [--require-signature KEY.pem,...]");
    const bool into_image = o.named.count("--as") > 0;
    PluginInstallOptions options{o.args[1], into_image ? "" : plugin_dir(o), key_files(named(o, "--require-signature"))};
    if (o.named.count("--require-signature") && options.trusted_keys.empty())
        throw UsageError("--require-signature needs public key files (PEM), comma-separated");
    if (into_image) return install_into_image(o, options);
    const auto installed = install_plugin(load_config(o, current_environment()), options, progress_of(o));
    if (o.json) {
        std::cout << actionhost::common::dump_json(to_json(installed), 2) << "\n";
        return kOk;
    }
    print_installed(installed);
    return kOk;
}

int ls(const Options &o) {
    only(o, "ls", {"--dir"});
    if (o.args.size() != 1) throw UsageError("usage: ahctl plugin ls [--dir DIR]");
    const auto plugins = list_installed_plugins(plugin_dir(o));
    if (o.json) {
        std::cout << actionhost::common::dump_json(to_json(plugins), 2) << "\n";
        return kOk;
    }
    std::printf("%-24s %-10s %-8s %s\n", "NAME", "VERSION", "ABI", "FROM");
    for (const auto &p : plugins)
        std::printf("%-24s %-10s %-8s %s\n", printable_name(p.name).c_str(), printable_name(p.version).c_str(), p.abi_version.c_str(),
                    p.reference.empty() ? "-" : printable_name(p.reference + (p.signed_by.empty() ? "" : " (signed)")).c_str());
    return kOk;
}

int rm(const Options &o) {
    only(o, "rm", {"--dir"});
    if (o.args.size() < 2) throw UsageError("usage: ahctl plugin rm NAME... [--dir DIR]");
    const std::string dir = plugin_dir(o);
    for (size_t i = 1; i < o.args.size(); ++i) {
        remove_installed_plugin(dir, o.args[i]);
        std::cout << "removed " << printable_name(o.args[i]) << " from " << printable_name(dir) << "\n";
    }
    return kOk;
}

int search(const Options &o) {
    only(o, "search", {});
    if (o.args.size() < 2 || o.args.size() > 3) throw UsageError("usage: ahctl plugin search REGISTRY [WORD]");
    const auto found = search_plugins(load_config(o, current_environment()), o.args[1], o.args.size() == 3 ? o.args[2] : "");
    if (o.json) {
        json out = json::array();
        for (const auto &p : found) out.push_back({{"repository", p.repository}, {"tag", p.tag}, {"annotations", p.annotations}});
        std::cout << actionhost::common::dump_json(out, 2) << "\n";
        return kOk;
    }
    std::printf("%-44s %-10s %-8s %-14s %s\n", "REPOSITORY", "TAG", "ABI", "PLATFORM", "REQUIRES");
    for (const auto &p : found) {
        const auto a = [&](const char *k) { return p.annotations.count(k) ? printable_name(p.annotations.at(k)) : std::string("-"); };
        std::printf("%-44s %-10s %-8s %-14s %s\n", printable_name(p.repository).c_str(), printable_name(p.tag).c_str(),
                    a("io.actionhost.plugin.abi_version").c_str(), a("io.actionhost.plugin.platform").c_str(), a("io.actionhost.plugin.requires").c_str());
    }
    return kOk;
}

}  // namespace

int cmd_plugin(const Options &o) {
    const std::string sub = o.args.empty() ? "" : o.args[0];
    if (sub == "push") return push(o);
    if (sub == "install") return install(o);
    if (sub == "ls") return ls(o);
    if (sub == "rm") return rm(o);
    if (sub == "search") return search(o);
    throw UsageError((sub.empty() ? std::string("plugin needs a subcommand") : "unknown plugin subcommand '" + sub + "'") +
                     ": push, install, ls, rm or search (see ahctl plugin --help)");
}

}  // namespace ahctl
