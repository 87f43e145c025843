// Which machine a plugin's library was built for, read from its ELF header (e_ident and e_machine), in
// OCI's platform words ("linux/amd64", "linux/arm64"): what `ahctl plugin push` writes as the
// artifact's platform and what `install` compares with this machine's before writing anything.
//
// Threads: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::client::plugins {

// The platform of the ELF whose first bytes (at least 20) are `head`; std::runtime_error when `head`
// is no ELF or a machine this table does not know.
std::string elf_platform(std::string_view head);
// This build's own platform ("linux/amd64" on x86-64), from the compiler's target.
std::string host_platform();

}  // namespace actionhost::client::plugins
