// The plugin commands over a registry's settings (runtime_plugins.cpp turns a Config into them and
// errors into RuntimeError):
//   plugin_publisher.cpp   push (pack, upload, sign) and search (catalog, tags, annotations)
//   plugin_installer.cpp   install: resolve by range, fetch, check, stage, rename
//   plugin_directory.cpp   a plugin directory: what is installed, removal, the install record
// Each throws std::runtime_error with the reason.
#pragma once

#include <string>
#include <vector>

#include "actionhost/client/plugins.hpp"
#include "images/registry_client.hpp"

namespace actionhost::client::plugins {

// A scratch directory (mkdtemp under $TMPDIR), removed with everything in it when the object goes.
class ScratchDir {
  public:
    explicit ScratchDir(const std::string &parent, const std::string &prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};
std::string temp_parent();  // $TMPDIR or /tmp

PluginPushResult push(const images::RegistrySettings &settings, const PluginPushOptions &options, const PluginProgress &progress);
std::vector<PublishedPlugin> search(const images::RegistrySettings &settings, const std::string &registry, const std::string &filter);
std::vector<InstalledPlugin> install(const images::RegistrySettings &settings, const PluginInstallOptions &options, const PluginProgress &progress);

// plugin_directory.cpp
std::vector<InstalledPlugin> installed_in(const std::string &dir);
void remove_from(const std::string &dir, const std::string &name);
inline constexpr const char *kInstallRecord = ".actionhost-install.json";  // in <dir>/<name>/: reference, digest, signed_by

// The largest plugin (its layer, unpacked or not) push and install handle.
inline constexpr uint64_t kMaxPluginBytes = uint64_t{2} << 30;

}  // namespace actionhost::client::plugins
