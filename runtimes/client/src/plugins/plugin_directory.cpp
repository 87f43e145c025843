// A plugin directory as `ahctl plugin ls` and `rm` see it: each <dir>/<name>/manifest.json, with the
// record `install` leaves beside it (where it came from).
#include <actionhost/modules/manifest.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "plugins/plugin_ops.hpp"

namespace actionhost::client::plugins {

namespace fs = std::filesystem;

std::string temp_parent() {
    const char *t = std::getenv("TMPDIR");
    return t != nullptr && *t != '\0' ? t : "/tmp";
}

ScratchDir::ScratchDir(const std::string &parent, const std::string &prefix) {
    std::string tmpl = parent + "/" + prefix + "XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a directory in " + parent + ": " + std::strerror(errno));
    path_ = tmpl;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::vector<InstalledPlugin> installed_in(const std::string &dir) {
    std::vector<InstalledPlugin> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string base = entry.path().filename().string();
        if (base.empty() || base[0] == '.' || !fs::is_regular_file(entry.path() / "manifest.json", ec)) continue;
        auto m = modules::read_manifest((entry.path() / "manifest.json").string());
        if (!m || m.value().kind != modules::ModuleKind::Plugin) continue;
        InstalledPlugin p;
        p.name = m.value().name;
        p.version = m.value().version;
        p.abi_version = modules::to_string(m.value().abi_version);
        p.dir = entry.path().string();
        std::ifstream record(entry.path() / kInstallRecord);
        std::stringstream text;
        text << record.rdbuf();
        const auto r = nlohmann::json::parse(text.str(), nullptr, false);
        if (r.is_object()) {
            p.reference = r.value("reference", "");
            p.digest = r.value("digest", "");
            p.signed_by = r.value("signed_by", "");
            p.platform = r.value("platform", "");
        }
        out.push_back(std::move(p));
    }
    std::sort(out.begin(), out.end(), [](const InstalledPlugin &a, const InstalledPlugin &b) { return a.name < b.name; });
    return out;
}

void remove_from(const std::string &dir, const std::string &name) {
    const auto all = installed_in(dir);
    const auto it = std::find_if(all.begin(), all.end(), [&](const InstalledPlugin &p) { return fs::path(p.dir).filename() == name; });
    if (it == all.end()) throw std::runtime_error("no plugin named '" + name + "' in " + dir + " (ahctl plugin ls --dir " + dir + " lists them)");
    std::string dependents;
    for (const auto &p : all) {
        if (p.name == it->name) continue;
        auto m = modules::read_manifest(p.dir + "/manifest.json");
        if (m && std::find(m.value().requires_plugins.begin(), m.value().requires_plugins.end(), it->name) != m.value().requires_plugins.end())
            dependents += (dependents.empty() ? "" : ", ") + p.name;
    }
    if (!dependents.empty()) throw std::runtime_error("the plugin '" + name + "' is required by " + dependents + " in " + dir + ": remove those first");
    // Out of the host's sight at once (a rename), then deleted.
    ScratchDir trash(dir, "." + name + ".removing-");
    std::error_code ec;
    fs::rename(it->dir, trash.path() + "/" + name, ec);
    if (ec) throw std::runtime_error("cannot remove " + it->dir + ": " + ec.message());
}

}  // namespace actionhost::client::plugins
