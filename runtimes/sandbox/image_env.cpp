#include "image_env.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::sandbox_runtime {

namespace {

bool valid_name(const std::string &name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

bool refused_name(const std::string &name) {
    static const char *const kExact[] = {"GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES",
                                         "RESOLV_HOST_CONF", "RES_OPTIONS", "SESSION_API_KEY"};
    for (const char *n : kExact)
        if (name == n) return true;
    return name.rfind("LD_", 0) == 0 || name.rfind("MALLOC_", 0) == 0;
}

}  // namespace

ImageEnv filter_image_env(const nlohmann::json &env, const std::map<std::string, std::string> &configured) {
    ImageEnv out;
    if (!env.is_array()) return out;
    for (const auto &e : env) {
        if (!e.is_string()) continue;
        const std::string kv = e.get<std::string>();
        const size_t eq = kv.find('=');
        const std::string name = kv.substr(0, eq);
        if (eq == std::string::npos || !valid_name(name) || kv.find('\0') != std::string::npos || refused_name(name)) {
            out.refused.push_back(name.substr(0, 64));
            continue;
        }
        if (configured.count(name) == 0) out.kept.push_back(kv);
    }
    return out;
}

void write_image_env(const std::string &path, const std::vector<std::string> &vars) {
    common::io::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    std::string text;
    for (const auto &v : vars) text += v + '\0';
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

}  // namespace actionhost::sandbox_runtime
