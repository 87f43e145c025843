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

  private:
    std::string path_of(const std::string &session_id) const;
    std::string dir_;
};

}  // namespace actionhost::client
