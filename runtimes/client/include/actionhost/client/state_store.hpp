// Records of runtimes kept alive after their client closed (`keep_runtime_alive`), so `ahctl ps` can
// list them and `ahctl stop` can end them from another process. One JSON file per session id.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::client {

class StateStore {
  public:
    // `dir` is created on first write.
    explicit StateStore(std::string dir);
    // `[core] state_dir`, else $XDG_STATE_HOME/actionhost/runtimes, else ~/.local/state/actionhost/runtimes.
    static std::string default_dir(const std::optional<std::string> &configured);

    const std::string &dir() const { return dir_; }
    // Writes {"session_id","runtime","url","session_api_key","runtime_id",...} atomically.
    void put(const nlohmann::json &record);
    std::optional<nlohmann::json> get(const std::string &session_id) const;
    void remove(const std::string &session_id);
    std::vector<nlohmann::json> list() const;

    // A kept-alive session being started: other processes learn of it before its record exists. The
    // marker <dir>/<session_id>.starting stays locked (flock) by the starting process and is removed
    // when this object goes; the kernel frees the lock if the process dies (kill -9 mid-start), whose
    // sandbox may then run unrecorded: take_abandoned_starts() finds it.
    class Starting {
      public:
        Starting(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
        Starting(Starting &&other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }
        Starting &operator=(Starting &&) = delete;
        ~Starting();

      private:
        std::string path_;
        int fd_;
    };
    Starting mark_starting(const std::string &session_id, const std::string &runtime);
    struct AbandonedStart {
        std::string session_id, runtime;
    };
    // Markers whose starting process is gone, removed as they are returned.
    std::vector<AbandonedStart> take_abandoned_starts();

  private:
    std::string path_of(const std::string &session_id) const;
    std::string dir_;
};

}  // namespace actionhost::client
