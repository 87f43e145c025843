// Registry credentials as the docker CLI finds them in its config.json ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json): a credential helper named for the registry in "credHelpers", else the
// "credsStore" helper, else the "auths" entry (base64 "user:password" in "auth", or "identitytoken").
// Helpers are run as the CLI runs them: `docker-credential-<name> get`, the server on stdin, JSON out.
// Used by every image-pulling path: the docker backend (for the engine's X-Registry-Auth) and the
// client's own image store (for a registry's basic or bearer authentication).
#pragma once

#include <optional>
#include <string>

namespace actionhost::runtime_support {

struct RegistryCredentials {
    std::string username, password, identity_token, server;
};

// The key a registry has in config.json: "https://index.docker.io/v1/" for Docker Hub, else the host.
std::string registry_config_key(const std::string &registry);

// Credentials for `registry` from `config_dir`/config.json, or nullopt when it names none. Throws
// std::runtime_error when the file is malformed or a helper fails (naming the file or the helper).
std::optional<RegistryCredentials> registry_credentials(const std::string &config_dir, const std::string &registry);

// $DOCKER_CONFIG, else $HOME/.docker (the password database's home when HOME is unset).
std::string default_docker_config_dir();

}  // namespace actionhost::runtime_support
