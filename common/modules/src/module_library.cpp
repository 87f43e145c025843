#include "actionhost/modules/module_library.hpp"

#include <unistd.h>

#include <actionhost/common/process/shell_identity.hpp>
#include <actionhost/common/sanitizers.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <cstdlib>
#include <mutex>

namespace actionhost::modules {

namespace {

// A manifest's `requires.executables` entry: a path, or a name the process's PATH finds
// (common::find_on_path, the one PATH look-up).
bool on_path(const std::string &exe) {
    if (exe.find('/') != std::string::npos) return access(exe.c_str(), X_OK) == 0;
    return !common::find_program(exe).empty();
}

// glibc loads and unloads one library at a time, under a lock of the dynamic loader that
// ThreadSanitizer cannot see (ld.so takes it with no intercepted call). A module unloaded on one thread
// (its static destructors run) and loaded again on another at the same address, as the client's
// runtimes of one backend do when they start and close concurrently, then looks like a race between
// the old copy's destructors and the new copy's initializers, and ld.so's bookkeeping like one between
// its own free and calloc. Loads and unloads take this lock too: the same order, told in a way TSan
// sees, at no cost (glibc serializes them anyway). Recursive as glibc's: a library's static
// initializers may load another. Never destroyed: a module may be closed during exit.
std::recursive_mutex &loader_lock() {
    static auto *lock = new std::recursive_mutex;
    return *lock;
}

const char *entry_symbol(ModuleKind kind) {
    return kind == ModuleKind::Plugin ? AH_PLUGIN_ENTRY_SYMBOL : AH_RUNTIME_ENTRY_SYMBOL;
}

// The negotiation of one entry struct. Both kinds' entries share their leading fields (abi_version,
// struct_size, name, version, create), so one template checks either, saying why not.
template <class Entry>
common::Status negotiate(const Entry *entry, const Manifest &manifest) {
    const ah_version_t ours = AH_ABI_VERSION_INIT;
    if (entry == nullptr) return common::fail("its entry function returned NULL");
    const ah_version_t abi = entry->abi_version;
    if (abi.major != ours.major)
        return common::fail("it was built for ABI " + to_string(abi) + ", this " +
                            (manifest.kind == ModuleKind::Plugin ? "host" : "client") + " implements " + to_string(ours) +
                            " (major differs)");
    if (abi.minor > ours.minor)
        return common::fail("it was built for ABI " + to_string(abi) + ", newer than this " +
                            (manifest.kind == ModuleKind::Plugin ? "host" : "client") + "'s " + to_string(ours) + " (minor is newer)");
    if (entry->struct_size < offsetof(Entry, create) + sizeof(entry->create))
        return common::fail("its entry struct is too small (" + std::to_string(entry->struct_size) + " bytes)");
    if (entry->name == nullptr || entry->version == nullptr || entry->create == nullptr)
        return common::fail("its entry struct has a NULL name, version or create");
    if (manifest.name != entry->name)
        return common::fail("its manifest says name \"" + manifest.name + "\" but the module says \"" + entry->name + "\"");
    if (manifest.version != entry->version)
        return common::fail("its manifest says version " + manifest.version + " but the module says " + entry->version);
    if (manifest.abi_version.major != abi.major || manifest.abi_version.minor != abi.minor ||
        manifest.abi_version.patch != abi.patch)
        return common::fail("its manifest says ABI " + to_string(manifest.abi_version) + " but the module was built for " +
                            to_string(abi));
    return common::ok();
}

// The first slot of `slots` that is NULL, by name, or nullptr.
template <size_t N>
const char *first_null(const std::pair<const char *, bool> (&slots)[N]) {
    for (const auto &[name, present] : slots)
        if (!present) return name;
    return nullptr;
}

}  // namespace

common::Status abi_supported(const ah_version_t &declared, ModuleKind kind) {
    const ah_version_t ours = AH_ABI_VERSION_INIT;
    const std::string who = kind == ModuleKind::Plugin ? "host" : "client";
    if (declared.major != ours.major)
        return common::fail("its manifest declares ABI " + to_string(declared) + ", this " + who + " implements " + to_string(ours) +
                            " (major differs)");
    if (declared.minor > ours.minor)
        return common::fail("its manifest declares ABI " + to_string(declared) + ", newer than this " + who + "'s " + to_string(ours) +
                            " (minor is newer)");
    return common::ok();
}

common::Result<std::unique_ptr<ModuleLibrary>> ModuleLibrary::open(const Manifest &manifest) {
    std::unique_ptr<ModuleLibrary> m(new ModuleLibrary());
    m->manifest_ = manifest;
    auto refuse = [&](const std::string &why) { return common::fail(m->refusal(why)); };
    for (const auto &exe : manifest.requires_executables)
        if (!on_path(exe)) return refuse("it requires the executable '" + exe + "', which is not installed");
    // Refused from the manifest alone: the library is not even opened.
    if (auto supported = abi_supported(manifest.abi_version, manifest.kind); !supported) return refuse(supported.error().message);
    try {
        std::lock_guard lock(loader_lock());
        m->lib_ = std::make_unique<boost::dll::shared_library>(
            manifest.library_path(), boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
    } catch (const std::exception &e) {
        return refuse(std::string("it cannot be loaded: ") + e.what());
    }
    const char *symbol = entry_symbol(manifest.kind);
    if (!m->lib_->has(symbol)) return refuse(std::string("it lacks the entry symbol ") + symbol);
    common::Status negotiated = common::ok();
    if (manifest.kind == ModuleKind::Plugin) {
        const ah_plugin_entry_t *entry = m->lib_->get<const ah_plugin_entry_t *()>(symbol)();
        negotiated = negotiate(entry, manifest);
        m->entry_ = entry;
    } else {
        const ah_runtime_entry_t *entry = m->lib_->get<const ah_runtime_entry_t *()>(symbol)();
        negotiated = negotiate(entry, manifest);
        m->entry_ = entry;
    }
    if (!negotiated) return refuse(negotiated.error().message);
    return m;
}

ModuleLibrary::~ModuleLibrary() {
    std::lock_guard lock(loader_lock());
    lib_.reset();
}

const ah_plugin_entry_t *ModuleLibrary::plugin_entry() const {
    return manifest_.kind == ModuleKind::Plugin ? static_cast<const ah_plugin_entry_t *>(entry_) : nullptr;
}

const ah_runtime_entry_t *ModuleLibrary::runtime_entry() const {
    return manifest_.kind == ModuleKind::Runtime ? static_cast<const ah_runtime_entry_t *>(entry_) : nullptr;
}

std::string ModuleLibrary::refusal(const std::string &why) const {
    return "refusing " + to_string(manifest_.kind) + " module " + manifest_.library_path() + ": " + why;
}

void ModuleLibrary::keep_loaded() { common::never_freed(lib_.release()); }

DispatchCheck check_dispatch(const ah_plugin_t &p) {
    if (p.struct_size < offsetof(ah_plugin_t, get_extension) + sizeof(p.get_extension))
        return {"its plugin struct is too small (" + std::to_string(p.struct_size) + " bytes)", false};
    const std::pair<const char *, bool> slots[] = {{"init", p.init != nullptr},         {"execute", p.execute != nullptr},
                                                   {"shutdown", p.shutdown != nullptr}, {"destroy", p.destroy != nullptr},
                                                   {"get_extension", p.get_extension != nullptr}};
    if (const char *slot = first_null(slots))
        return {std::string("its plugin struct has a NULL '") + slot + "' function", p.destroy != nullptr};
    return {};
}

DispatchCheck check_dispatch(const ah_runtime_t &r) {
    if (r.struct_size < offsetof(ah_runtime_t, get_extension) + sizeof(r.get_extension))
        return {"its runtime struct is too small (" + std::to_string(r.struct_size) + " bytes)", false};
    const std::pair<const char *, bool> slots[] = {
        {"connect", r.connect != nullptr}, {"endpoint", r.endpoint != nullptr}, {"pause", r.pause != nullptr},
        {"resume", r.resume != nullptr},   {"close", r.close != nullptr},       {"destroy", r.destroy != nullptr},
        {"get_extension", r.get_extension != nullptr}};
    if (const char *slot = first_null(slots))
        return {std::string("its runtime struct has a NULL '") + slot + "' function", r.destroy != nullptr};
    return {};
}

}  // namespace actionhost::modules
