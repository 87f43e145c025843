// A plain HTTP/1.1 client for tests, over loopback, one keep-alive connection per Http object.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace actionhost::testing {

struct HttpResponse {
    int status = 0;
    std::string body;
    std::map<std::string, std::string> headers;  // names lower-cased
    nlohmann::json json() const { return nlohmann::json::parse(body); }
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class Http {
  public:
    Http(std::string host, int port, double timeout_s = 130.0);
    ~Http();
    HttpResponse request(const std::string &method, const std::string &path, const std::string &body = "",
                         const std::string &content_type = "", const Headers &headers = {});
    HttpResponse get(const std::string &path, const Headers &headers = {}) { return request("GET", path, "", "", headers); }
    HttpResponse post_json(const std::string &path, const std::string &body, const Headers &headers = {}) {
        return request("POST", path, body, "application/json", headers);
    }
    // multipart/form-data upload of one file field named "file".
    HttpResponse upload(const std::string &path_and_query, const std::string &filename, const std::string &content,
                        const Headers &headers = {});

  private:
    struct Impl;
    Impl *impl_;
};

}  // namespace actionhost::testing
