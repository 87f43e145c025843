#include "actionhost/runtime_support/registry_credentials.hpp"
#include <actionhost/common/base64.hpp>

#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/common/process/shell_identity.hpp>
#include <actionhost/common/user_entry.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace actionhost::runtime_support {

namespace {

namespace rs = actionhost::runtime_support;
using nlohmann::json;

const char *kDockerHubKey = "https://index.docker.io/v1/";

// The CLI's ConvertToHostname: a config key may be a URL ("https://ghcr.io/v2/"); only its host counts.
std::string key_host(std::string key) {
    if (key.rfind("http://", 0) == 0) key = key.substr(7);
    else if (key.rfind("https://", 0) == 0) key = key.substr(8);
    return key.substr(0, key.find('/'));
}

// `docker-credential-<helper> get` with the server URL on stdin; "credentials not found" is no error.
std::optional<RegistryCredentials> from_helper(const std::string &helper, const std::string &server) {
    const std::string program = "docker-credential-" + helper;
    const std::string path = actionhost::common::find_program(program);
    if (path.empty()) throw std::runtime_error("the Docker credential helper " + program + " (named in config.json) is not on PATH");
    const rs::ScopedTempDir scratch("ah-credential-");
    const std::string &dir = scratch.path();
    std::ofstream(dir + "/in") << server << "\n";
    rs::SpawnOptions o;
    o.argv = {path, "get"};
    o.env = rs::process_environment();
    o.stdin_path = dir + "/in";
    o.log_path = dir + "/out";
    const pid_t pid = rs::spawn_process(o);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::optional<int> status;
    for (int i = 0; i < 30000 && !(status = rs::try_reap(pid)); ++i) {
        if (std::chrono::steady_clock::now() >= deadline) {
            rs::stop_process_group(pid, 1);
            throw std::runtime_error(program + " get did not answer within 30 s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::ifstream in(dir + "/out");
    std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!status || !WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
        if (output.find("credentials not found") != std::string::npos) return std::nullopt;
        throw std::runtime_error(program + " get failed: " + output);
    }
    json j = json::parse(output, nullptr, false);
    if (!j.is_object()) throw std::runtime_error(program + " get answered no JSON object: " + output);
    RegistryCredentials c;
    c.server = server;
    const std::string user = j.value("Username", "");
    const std::string secret = j.value("Secret", "");
    if (user == "<token>") c.identity_token = secret;  // the CLI's marker for an identity token
    else {
        c.username = user;
        c.password = secret;
    }
    return c;
}

}  // namespace

std::string registry_config_key(const std::string &registry) {
    return registry == "docker.io" || registry == "index.docker.io" || registry == "registry-1.docker.io" ? kDockerHubKey : registry;
}

std::string default_docker_config_dir() {
    if (const char *d = std::getenv("DOCKER_CONFIG"); d && *d) return d;
    const char *home = std::getenv("HOME");
    std::string h = home && *home ? home : "";
    if (h.empty())
        if (const auto me = actionhost::common::user_by_uid(getuid())) h = me->home;  // getpwuid's buffer is shared by threads
    return h + "/.docker";
}

std::optional<RegistryCredentials> registry_credentials(const std::string &config_dir, const std::string &registry) {
    const std::string file = config_dir + "/config.json";
    std::ifstream in(file);
    if (!in) return std::nullopt;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json config = json::parse(text, nullptr, false);
    if (!config.is_object()) throw std::runtime_error(file + " is not a JSON object");
    const std::string key = registry_config_key(registry);
    const std::string host = key_host(key);
    if (config.contains("credHelpers") && config["credHelpers"].is_object())
        for (const auto &[k, v] : config["credHelpers"].items())
            if (key_host(k) == host && v.is_string()) return from_helper(v.get<std::string>(), key);
    if (config.contains("credsStore") && config["credsStore"].is_string() && !config["credsStore"].get<std::string>().empty())
        return from_helper(config["credsStore"].get<std::string>(), key);
    if (!config.contains("auths") || !config["auths"].is_object()) return std::nullopt;
    for (const auto &[k, entry] : config["auths"].items()) {
        if (key_host(k) != host || !entry.is_object()) continue;
        RegistryCredentials c;
        c.server = key;
        c.username = entry.value("username", "");
        c.password = entry.value("password", "");
        c.identity_token = entry.value("identitytoken", "");
        if (const std::string auth = entry.value("auth", ""); !auth.empty()) {
            const std::string plain = common::base64_decode(auth).value_or("");
            const size_t colon = plain.find(':');
            if (colon == std::string::npos) throw std::runtime_error(file + ": the \"auth\" of " + k + " is not base64 of user:password");
            c.username = plain.substr(0, colon);
            c.password = plain.substr(colon + 1);
        }
        if (c.username.empty() && c.password.empty() && c.identity_token.empty()) return std::nullopt;
        return c;
    }
    return std::nullopt;
}

}  // namespace actionhost::runtime_support
