// Loading a backend module with the loader the host loads its plugins with: manifest, negotiation (ABI,
// entry symbol, struct size, name and version), then the dispatch table checked before any call.
#include "runtime_impl.hpp"

namespace actionhost::client {

void Runtime::Impl::load_module(const RuntimeModule &mod) {
    module_name = mod.name;
    auto manifest = modules::read_manifest(mod.manifest_path);
    if (!manifest)
        throw RuntimeError("refusing runtime module " + mod.library_path + ": its manifest " + mod.manifest_path + " " +
                           manifest.error().message);
    auto opened = modules::ModuleLibrary::open(manifest.value());
    if (!opened) throw RuntimeError(opened.error().message);
    module = std::move(opened).value();
    if (manifest.value().never_unload) module->keep_loaded();
}

void Runtime::Impl::create_runtime(const std::string &wanted) {
    runtime = module->runtime_entry()->create(&host, wanted.c_str());
    if (!runtime) throw RuntimeError("Runtime " + runtime_name + " could not be created: " + take_error("no reason given"));
    if (const auto check = modules::check_dispatch(*runtime); !check.ok()) {
        if (check.can_destroy) runtime->destroy(runtime);  // else a truncated struct: leaked
        runtime = nullptr;
        throw RuntimeError(module->refusal(check.why));
    }
}

}  // namespace actionhost::client
