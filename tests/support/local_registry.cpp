#include "support/local_registry.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "support/free_port.hpp"
#include "support/http.hpp"

namespace actionhost::testing {

LocalRegistry::LocalRegistry(const std::string &htpasswd) {
    if (access("/usr/bin/docker-registry", X_OK) != 0) {
        why_not_ = "no /usr/bin/docker-registry (apt-get install docker-registry)";
        return;
    }
    port_ = free_port();
    std::string config = "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: " + dir_ / "data" +
                         "\nhttp:\n  addr: 127.0.0.1:" + std::to_string(port_) + "\n";
    if (!htpasswd.empty()) {
        write_file(dir_ / "htpasswd", htpasswd);
        config += "auth:\n  htpasswd:\n    realm: actionhost-test\n    path: " + dir_ / "htpasswd" + "\n";
    }
    write_file(dir_ / "config.yml", config);
    const std::string config_path = dir_ / "config.yml", log_path = dir_ / "registry.log";
    pid_ = ::fork();
    if (pid_ == 0) {
        ::setpgid(0, 0);  // its own group: killed whole when the test ends
        const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int null = ::open("/dev/null", O_RDONLY);
        if (log >= 0) {
            ::dup2(log, 1);
            ::dup2(log, 2);
        }
        if (null >= 0) ::dup2(null, 0);
        ::execl("/usr/bin/docker-registry", "docker-registry", "serve", config_path.c_str(), static_cast<char *>(nullptr));
        ::_exit(127);
    }
    for (int i = 0; i < 300 && pid_ > 0; ++i) {  // at most 15 s
        try {
            Http http("127.0.0.1", port_, 2);
            const int st = http.get("/v2/").status;
            if (st == 200 || st == 401) {
                started_ = true;
                return;
            }
        } catch (const std::exception &) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    why_not_ = "docker-registry did not answer: " + read_file(log_path);
}

LocalRegistry::~LocalRegistry() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // at most 5 s, then SIGKILL
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
}

std::string LocalRegistry::blob_path(const std::string &digest) const {
    const std::string hex = digest.substr(digest.find(':') + 1);
    return dir_ / ("data/docker/registry/v2/blobs/sha256/" + hex.substr(0, 2) + "/" + hex + "/data");
}

}  // namespace actionhost::testing
