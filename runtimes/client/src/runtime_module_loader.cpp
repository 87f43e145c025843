// Loading a backend module and checking its entry (ABI version, completeness, name) before use.
#include <cstddef>

#include "runtime_impl.hpp"

namespace actionhost::client {

void Runtime::Impl::load_module(const RuntimeModule &mod) {
    module_name = mod.name;
    try {
        module.library = boost::dll::shared_library(mod.library_path, boost::dll::load_mode::rtld_now |
                                                                          boost::dll::load_mode::rtld_local);
    } catch (const std::exception &e) {
        throw RuntimeError("Cannot load runtime module " + mod.library_path + ": " + e.what());
    }
    if (!module.library.has(AH_RUNTIME_ENTRY_SYMBOL))
        throw RuntimeError("Runtime module " + mod.library_path + " does not export " AH_RUNTIME_ENTRY_SYMBOL);
    auto &fn = module.library.get<const ah_runtime_entry_t *()>(AH_RUNTIME_ENTRY_SYMBOL);
    const ah_runtime_entry_t *entry = fn();
    if (!entry) throw RuntimeError("Runtime module " + mod.name + " returned no entry");
    auto v = entry->abi_version;
    auto ver = [](uint32_t a, uint32_t b, uint32_t c) {
        return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
    };
    if (v.major != AH_ABI_VERSION_MAJOR || v.minor > AH_ABI_VERSION_MINOR)
        throw RuntimeError("Runtime module " + mod.name + " was built for ABI " + ver(v.major, v.minor, v.patch) +
                           ", this client implements " +
                           ver(AH_ABI_VERSION_MAJOR, AH_ABI_VERSION_MINOR, AH_ABI_VERSION_PATCH));
    if (entry->struct_size < offsetof(ah_runtime_entry_t, create) + sizeof(entry->create) || !entry->create)
        throw RuntimeError("Runtime module " + mod.name + " has an incomplete entry");
    if (!entry->name || mod.name != entry->name)
        throw RuntimeError("Runtime module " + mod.library_path + " calls itself '" + (entry->name ? entry->name : "") +
                           "' but its manifest says '" + mod.name + "'");
    module.entry = entry;
}

}  // namespace actionhost::client
