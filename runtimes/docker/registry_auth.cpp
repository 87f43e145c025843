#include "registry_auth.hpp"

#include <Poco/Base64Encoder.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace docker {

std::string registry_auth_header(const RegistryCredentials &c) {
    nlohmann::json j = nlohmann::json::object();
    if (!c.identity_token.empty()) j["identitytoken"] = c.identity_token;
    else {
        j["username"] = c.username;
        j["password"] = c.password;
    }
    j["serveraddress"] = c.server;
    std::ostringstream out;
    Poco::Base64Encoder enc(out, Poco::BASE64_URL_ENCODING);
    enc.rdbuf()->setLineLength(0);
    enc << j.dump();
    enc.close();
    return out.str();
}

}  // namespace docker
