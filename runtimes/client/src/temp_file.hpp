// A temporary file of the client's own: created 0600 in TMPDIR (else /tmp) with mkstemp, removed when
// the object goes. For archives on their way to or from a sandbox, which are never held in memory.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <actionhost/common/io/unique_fd.hpp>

#include "actionhost/client/errors.hpp"

namespace actionhost::client::detail {

class TempFile {
  public:
    // `what` goes into the name (actionhost-<what>-XXXXXX). Throws WireError when no file can be made.
    explicit TempFile(const std::string &what) {
        const char *tmp = std::getenv("TMPDIR");
        path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/actionhost-" + what + "-XXXXXX";
        fd_.reset(::mkstemp(path_.data()));
        if (!fd_) throw WireError("Cannot create a temporary file (" + path_ + "): " + std::strerror(errno));
    }
    ~TempFile() { ::unlink(path_.c_str()); }
    TempFile(const TempFile &) = delete;
    TempFile &operator=(const TempFile &) = delete;
    const std::string &path() const { return path_; }
    int fd() const { return fd_.get(); }

  private:
    std::string path_;
    common::io::UniqueFd fd_;
};

}  // namespace actionhost::client::detail
