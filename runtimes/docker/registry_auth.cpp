#include "registry_auth.hpp"
#include <actionhost/common/base64.hpp>


#include <nlohmann/json.hpp>
#include <sstream>
#include <actionhost/common/json_write.hpp>

namespace docker {

std::string registry_auth_header(const RegistryCredentials &c) {
    nlohmann::json j = nlohmann::json::object();
    if (!c.identity_token.empty()) j["identitytoken"] = c.identity_token;
    else {
        j["username"] = c.username;
        j["password"] = c.password;
    }
    j["serveraddress"] = c.server;
    return actionhost::common::base64_encode(actionhost::common::dump_json(j), true);
}

}  // namespace docker
