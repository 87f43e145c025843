// The last bytes of a file reached through a descriptor the caller holds (a child's log the host made
// before the log's directory changed hands): read with pread, so neither the file's name — which someone
// else may have pointed elsewhere since — nor the descriptor's offset (shared with the child writing it)
// is used.
//
// Threads: any.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace actionhost::common::io {

// At most `max_bytes` from the end of the regular file `fd` is open on; "" when it cannot be read.
inline std::string file_tail(int fd, size_t max_bytes) {
    struct stat st{};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
    const off_t size = st.st_size;
    const off_t from = size > static_cast<off_t>(max_bytes) ? size - static_cast<off_t>(max_bytes) : 0;
    std::string text(static_cast<size_t>(size - from), '\0');
    const ssize_t n = ::pread(fd, text.data(), text.size(), from);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return text;
}

}  // namespace actionhost::common::io
