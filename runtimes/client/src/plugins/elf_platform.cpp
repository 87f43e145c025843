#include "plugins/elf_platform.hpp"

#include <elf.h>

#include <cstdint>
#include <stdexcept>

namespace actionhost::client::plugins {

std::string elf_platform(std::string_view head) {
    if (head.size() < 20 || head.substr(0, 4) != std::string_view(ELFMAG, SELFMAG)) throw std::runtime_error("it is not an ELF file");
    const bool is64 = static_cast<unsigned char>(head[EI_CLASS]) == ELFCLASS64;
    const bool little = static_cast<unsigned char>(head[EI_DATA]) == ELFDATA2LSB;
    const auto b = [&](size_t i) { return static_cast<uint16_t>(static_cast<unsigned char>(head[i])); };
    const uint16_t machine = little ? static_cast<uint16_t>(b(18) | (b(19) << 8)) : static_cast<uint16_t>((b(18) << 8) | b(19));
    std::string arch;
    switch (machine) {
        case EM_X86_64: arch = is64 ? "amd64" : "amd64p32"; break;
        case EM_386: arch = "386"; break;
        case EM_AARCH64: arch = "arm64"; break;
        case EM_ARM: arch = "arm"; break;
        case EM_RISCV: arch = is64 ? "riscv64" : "riscv32"; break;
        case EM_PPC64: arch = little ? "ppc64le" : "ppc64"; break;
        case EM_S390: arch = "s390x"; break;
        case EM_MIPS: arch = std::string(is64 ? "mips64" : "mips") + (little ? "le" : ""); break;
        case EM_LOONGARCH: arch = "loong64"; break;
        default: throw std::runtime_error("its ELF machine " + std::to_string(machine) + " is not one this client knows");
    }
    return "linux/" + arch;
}

std::string host_platform() {
#if defined(__x86_64__)
    return "linux/amd64";
#elif defined(__aarch64__)
    return "linux/arm64";
#elif defined(__i386__)
    return "linux/386";
#elif defined(__arm__)
    return "linux/arm";
#elif defined(__riscv) && __riscv_xlen == 64
    return "linux/riscv64";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
    return "linux/ppc64le";
#elif defined(__s390x__)
    return "linux/s390x";
#elif defined(__loongarch64)
    return "linux/loong64";
#else
#error "host_platform: add this architecture's OCI name"
#endif
}

}  // namespace actionhost::client::plugins
