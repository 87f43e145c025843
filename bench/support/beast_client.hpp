// The benchmarks' HTTP client for round trips measured against a floor: Boost.Beast's synchronous
// HTTP/1.1 on one kept-alive loopback connection. The tests' client (Poco, support/http.hpp) reads every
// answer through iostreams and copies it into a stringstream: about 45 us of a 250 us `echo hi` here,
// time of the measuring instrument, not of the host. Beast parses into one reused buffer.
#pragma once

#include <memory>
#include <string>

namespace actionhost::bench {

struct BeastAnswer {
    int status = 0;
    std::string body;
};

class BeastClient {
  public:
    BeastClient(const std::string &host, int port);
    ~BeastClient();
    BeastClient(const BeastClient &) = delete;
    BeastClient &operator=(const BeastClient &) = delete;

    // One request on the kept-alive connection; throws std::runtime_error on a connection failure.
    BeastAnswer post_json(const std::string &path, const std::string &body);
    BeastAnswer get(const std::string &path);

    // A request Beast serialises once, for a loop that sends the same one many times, as a floor's
    // command line is made once: the loop then times the host's answer, not the client writing its
    // message again. Beast's serializer walks its buffer views at about 8k instructions per request
    // (callgrind), 5-7 us of a 180 us `echo hi` here; the answer is still read and parsed by Beast.
    std::string serialized_post_json(const std::string &path, const std::string &body) const;
    std::string serialized_get(const std::string &path) const;
    BeastAnswer send_serialized(const std::string &request);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace actionhost::bench
