#include "actionhost/client/state_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <actionhost/common/json_write.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>

namespace actionhost::client {

namespace fs = std::filesystem;
using nlohmann::json;

StateStore::StateStore(std::string dir) : dir_(std::move(dir)) {}

std::string StateStore::default_dir(const std::optional<std::string> &configured) {
    if (configured && !configured->empty()) return *configured;
    if (const char *x = getenv("XDG_STATE_HOME"); x && *x) return std::string(x) + "/actionhost/runtimes";
    if (const char *h = getenv("HOME"); h && *h) return std::string(h) + "/.local/state/actionhost/runtimes";
    return "/tmp/actionhost-" + std::to_string(getuid()) + "/runtimes";
}

// One naming for the client library and the backends, which remove it when their runtime ends by itself.
std::string StateStore::path_of(const std::string &sid) const { return runtime_support::client_record_path(dir_, sid); }

void StateStore::put(const json &record) {
    fs::create_directories(dir_);
    std::string path = path_of(record.at("session_id").get<std::string>());
    std::string tmp = path + ".tmp" + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << actionhost::common::dump_json(record, 2) << "\n";
    }
    fs::rename(tmp, path);
}

std::optional<json> StateStore::get(const std::string &sid) const {
    std::ifstream in(path_of(sid));
    if (!in) return std::nullopt;
    try {
        return json::parse(in);
    } catch (...) {
        return std::nullopt;
    }
}

void StateStore::remove(const std::string &sid) {
    std::error_code ec;
    fs::remove(path_of(sid), ec);
}

StateStore::Starting::~Starting() {
    if (fd_ < 0) return;
    ::unlink(path_.c_str());
    ::close(fd_);
}

StateStore::Starting StateStore::mark_starting(const std::string &sid, const std::string &runtime) {
    fs::create_directories(dir_);
    std::string path = path_of(sid);
    path = path.substr(0, path.size() - 5) + ".starting";  // <sid>.json → <sid>.starting
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("session " + sid + " is being started by another process (" + path + ")");
    }
    const std::string text = actionhost::common::dump_json(json{{"session_id", sid}, {"runtime", runtime}});
    (void)!::write(fd, text.data(), text.size());
    return Starting(path, fd);
}

std::vector<StateStore::AbandonedStart> StateStore::take_abandoned_starts() {
    std::vector<AbandonedStart> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir_, ec)) {
        if (e.path().extension() != ".starting") continue;
        const int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
            std::ifstream in(e.path());
            try {
                // An empty marker is one being made this instant: not abandoned.
                json m = json::parse(in);
                out.push_back({m.value("session_id", ""), m.value("runtime", "")});
                ::unlink(e.path().c_str());
            } catch (...) {
            }
        }
        ::close(fd);
    }
    return out;
}

std::vector<json> StateStore::list() const {
    std::vector<json> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir_, ec)) {
        if (e.path().extension() != ".json") continue;
        std::ifstream in(e.path());
        try {
            json r = json::parse(in);
            if (r.is_object() && r.contains("session_id")) out.push_back(r);
        } catch (...) {
        }
    }
    std::sort(out.begin(), out.end(), [](const json &a, const json &b) {
        return a.value("session_id", "") < b.value("session_id", "");
    });
    return out;
}

}  // namespace actionhost::client
