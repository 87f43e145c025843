// manifest.json text as the registry reads it from a module directory.
#include <cstdint>
#include <string_view>

#include <actionhost/modules/manifest.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace actionhost::modules;
    auto r = parse_manifest(std::string_view(reinterpret_cast<const char *>(data), size), "/fuzz/module");
    if (r) {
        (void)r.value().library_path();
        (void)to_string(r.value().abi_version);
        (void)to_string(r.value().kind);
    }
    return 0;
}
