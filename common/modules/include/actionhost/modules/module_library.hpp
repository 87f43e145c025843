// The one module loader of the project, for the host's plugin modules and the client's runtime modules
// alike. Vulkan's loader is the model: the manifest is read first (manifest.hpp, no code runs), then the
// library is opened and negotiated — the entry symbol of its kind, the ABI (same major, a minor not
// newer than ours), an entry struct large enough to hold `create`, and name, version and ABI equal to
// what the manifest says — and the dispatch table `create` returns is checked for its size and NULL
// slots before anything calls through it. Every refusal is one line: "refusing <kind> module <file>:
// <why>", so a broken plugin and a broken runtime backend read the same.
#pragma once

#include <actionhost/plugin.h>
#include <actionhost/runtime.h>

#include <memory>
#include <string>

#include "actionhost/common/result.hpp"
#include "actionhost/modules/manifest.hpp"

namespace boost::dll {
class shared_library;
}

namespace actionhost::modules {

// Whether a module whose manifest declares ABI `declared` may be loaded by this build, judged from the
// manifest alone (the loader's first check, and `ahctl plugin install`'s before anything is written):
// the same major as ours and a minor not newer. The error says which and why.
common::Status abi_supported(const ah_version_t &declared, ModuleKind kind);

class ModuleLibrary {
  public:
    // Opens `manifest.library_path()` and negotiates it. Refuses (the error is the one line)
    // a module whose manifest declares another ABI major, one that needs an executable not installed,
    // a file that cannot be loaded, a missing entry symbol, a NULL entry, an ABI major that differs or
    // a newer minor, an entry struct too small, NULL name/version/create, or an entry that disagrees
    // with its manifest. Nothing of the module runs but its constructors and its entry function.
    static common::Result<std::unique_ptr<ModuleLibrary>> open(const Manifest &manifest);
    ~ModuleLibrary();  // unloads, unless keep_loaded() was called
    ModuleLibrary(const ModuleLibrary &) = delete;
    ModuleLibrary &operator=(const ModuleLibrary &) = delete;

    const Manifest &manifest() const { return manifest_; }
    // The negotiated entry; only the one of the manifest's kind is non-null.
    const ah_plugin_entry_t *plugin_entry() const;
    const ah_runtime_entry_t *runtime_entry() const;
    // "refusing <kind> module <file>: <why>" — for the refusals that follow the negotiation (create,
    // the dispatch table, init), in the same words.
    std::string refusal(const std::string &why) const;
    // Keeps the code mapped for the life of the process ("never_unload": a module with threads or
    // atexit handlers of its own): the handle is leaked on purpose.
    void keep_loaded();

  private:
    ModuleLibrary() = default;
    Manifest manifest_;
    std::unique_ptr<boost::dll::shared_library> lib_;
    const void *entry_ = nullptr;
};

// The checks of a dispatch table `create` returned, before the loader calls through it: its size holds
// every slot, and no slot is NULL. `why` is "" when the table is usable, else one reason ("its plugin
// struct has a NULL 'execute' function"). A table too small to hold every slot cannot be trusted, not
// even its destroy: then `can_destroy` is false and the caller leaks the instance.
struct DispatchCheck {
    std::string why;
    bool can_destroy = true;
    bool ok() const { return why.empty(); }
};
DispatchCheck check_dispatch(const ah_plugin_t &plugin);
DispatchCheck check_dispatch(const ah_runtime_t &runtime);

}  // namespace actionhost::modules
