// Registry credentials (actionhost/runtime_support/registry_credentials.hpp, shared with the client's image
// store) as the engine takes them: the X-Registry-Auth header (base64url JSON).
#pragma once

#include <actionhost/runtime_support/registry_credentials.hpp>

#include <string>

namespace docker {

using actionhost::runtime_support::default_docker_config_dir;
using actionhost::runtime_support::registry_config_key;
using actionhost::runtime_support::registry_credentials;
using actionhost::runtime_support::RegistryCredentials;

// The X-Registry-Auth header value.
std::string registry_auth_header(const RegistryCredentials &credentials);

}  // namespace docker
