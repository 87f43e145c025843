// Whether the image the host runs in has what each plugin needs from it (manifest "needs": bash,
// python3 with ipykernel, chromium, a VS Code server), checked once per plugin. A plugin whose need is
// missing is not loaded; its actions answer an error observation naming the package to install, and
// /server_info lists it, instead of the host failing to start or a plugin failing later with a cryptic
// exec error. What meets a need (the path of python3 with ipykernel, or the bundle's static bash) is
// published to the plugins as the configuration value "needs.<name>".
#pragma once

#include <actionhost/common/result.hpp>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <actionhost/modules/manifest.hpp>

namespace actionhost::host {

struct NeedStatus {
    modules::ImageNeed need;
    bool met = false;
    std::string path;  // what meets it ("" when configured_by met it, or when it is missing)
    std::string looked_at;  // where it was looked for, for the message
};

class ImageNeeds {
  public:
    // `config`: a configuration or environment value, or nullptr (HostEnvironment::config_get).
    using Lookup = std::function<const char *(const std::string &key)>;
    ImageNeeds(std::string install_dir, Lookup config);

    // Each need of `m`, checked the first time and remembered.
    std::vector<NeedStatus> check(const modules::Manifest &m);

  private:
    NeedStatus check_one(const modules::ImageNeed &need) const;
    std::string install_dir_;
    Lookup config_;
    std::mutex mu_;
    std::map<std::string, std::vector<NeedStatus>> checked_;  // plugin name → its needs
};

// Whether every need is met; a failure is the error text for the plugin's actions, e.g. "The jupyter
// plugin needs python3 with ipykernel, which this image does not have: install python3-ipykernel ...".
common::Status needs_met(const std::string &plugin, const std::vector<NeedStatus> &needs);

// /server_info's entry for one unmet need.
nlohmann::json unmet_need_json(const std::string &plugin, const NeedStatus &status);

}  // namespace actionhost::host
