#include "modules/image_needs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "sys/run_command.hpp"

namespace actionhost::host {

namespace {

bool executable_file(const std::string &path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// find_spec, not import: it answers without running the module (ipykernel's import takes ~0.3 s).
bool python_has_module(const std::string &python, const std::string &module) {
    CommandOptions o;
    o.quiet = true;
    o.timeout_s = 20;
    return run_command({python, "-c", "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 3)", module},
                       o) == 0;
}

}  // namespace

ImageNeeds::ImageNeeds(std::string install_dir, Lookup config) : install_dir_(std::move(install_dir)), config_(std::move(config)) {}

std::vector<NeedStatus> ImageNeeds::check(const modules::Manifest &m) {
    std::lock_guard lock(mu_);
    if (auto it = checked_.find(m.name); it != checked_.end()) return it->second;
    std::vector<NeedStatus> out;
    for (const auto &need : m.needs) out.push_back(check_one(need));
    checked_[m.name] = out;
    return out;
}

NeedStatus ImageNeeds::check_one(const modules::ImageNeed &need) const {
    NeedStatus s;
    s.need = need;
    auto value = [&](const std::string &key) -> std::string {
        const char *v = config_ ? config_(key) : nullptr;
        return v ? v : "";
    };
    for (const auto &key : need.configured_by) {
        if (!value(key).empty()) {
            s.met = true;
            return s;
        }
    }
    std::vector<std::string> looked;
    auto accept = [&](const std::string &path) {
        if (!executable_file(path)) return false;
        if (!need.python_module.empty() && !python_has_module(path, need.python_module)) return false;
        s.met = true;
        s.path = path;
        return true;
    };
    for (const auto &candidate : need.executables) {
        if (candidate.rfind('$', 0) == 0) {  // "$VAR/rest": below a configured directory
            const size_t slash = candidate.find('/');
            const std::string base = value(candidate.substr(1, slash == std::string::npos ? std::string::npos : slash - 1));
            if (base.empty() || slash == std::string::npos) continue;
            looked.push_back(base + candidate.substr(slash));
            if (accept(looked.back())) return s;
        } else if (candidate.find('/') != std::string::npos) {
            looked.push_back(candidate);
            if (accept(candidate)) return s;
        } else {
            looked.push_back(candidate + " on PATH");
            std::string path = value("PATH");
            std::stringstream dirs(path.empty() ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : path);
            std::string dir;
            for (int i = 0; i < 256 && std::getline(dirs, dir, ':'); ++i)
                if (!dir.empty() && accept(dir + "/" + candidate)) return s;
        }
    }
    if (!need.bundled.empty()) {
        looked.push_back(install_dir_ + "/" + need.bundled);
        if (executable_file(looked.back())) {
            s.met = true;
            s.path = looked.back();
            return s;
        }
    }
    for (const auto &l : looked) s.looked_at += (s.looked_at.empty() ? "" : ", ") + l;
    if (!need.python_module.empty()) s.looked_at += "; with the Python module " + need.python_module;
    return s;
}

common::Status needs_met(const std::string &plugin, const std::vector<NeedStatus> &needs) {
    std::string text;
    for (const auto &n : needs) {
        if (n.met) continue;
        text += (text.empty() ? "The " + plugin + " plugin needs " : "; it also needs ") + n.need.description +
                ", which this image does not have: install " + n.need.package + " (looked for " + n.looked_at + ")";
    }
    if (text.empty()) return common::ok();
    return common::fail(text + ".");
}

nlohmann::json unmet_need_json(const std::string &plugin, const NeedStatus &status) {
    return {{"plugin", plugin},
            {"need", status.need.name},
            {"description", status.need.description},
            {"package", status.need.package},
            {"looked_for", status.looked_at}};
}

}  // namespace actionhost::host
