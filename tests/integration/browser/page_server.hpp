// A tiny HTTP server on 127.0.0.1 serving the fixed pages the browser tests visit (Poco HTTPServer).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

namespace Poco::Net {
class HTTPServer;
}

namespace actionhost::testing {

struct Page {
    int status = 200;
    std::string content_type = "text/html; charset=utf-8";
    std::string body;
    std::map<std::string, std::string> headers;
};

class PageServer {
  public:
    PageServer();  // binds an ephemeral port and serves the built-in pages
    ~PageServer();
    int port() const { return port_; }
    std::string url(const std::string &path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
    // Requests seen for a path (lets a test check what a form submitted).
    std::string last_query(const std::string &path) const;

    struct State;

  private:
    std::shared_ptr<State> state_;
    std::unique_ptr<Poco::Net::HTTPServer> server_;
    int port_ = 0;
};

// A minimal valid one-page PDF.
std::string tiny_pdf();

}  // namespace actionhost::testing
