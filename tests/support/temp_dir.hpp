// A directory that exists for the life of the object (mkdtemp under $TMPDIR or /tmp).
#pragma once

#include <string>

namespace actionhost::testing {

class TempDir {
  public:
    explicit TempDir(const std::string &prefix = "ahtest");
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::string &path() const { return path_; }
    std::string operator/(const std::string &name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

// Writes `content` to `path` (creating parents); reads a whole file.
void write_file(const std::string &path, const std::string &content);
std::string read_file(const std::string &path);

}  // namespace actionhost::testing
