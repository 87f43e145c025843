// One JSON request line, one JSON answer line, then the connection closes: the control sockets of the
// processes that keep a sandbox's lifetime outside it (ah-sandbox-init: runtimes/sandbox/init/
// control_server.hpp; the local and docker keepers: keeper_program.hpp), and the client side every
// backend asks them with. The socket is the caller's alone (0600, in a directory of the caller's) and
// the server answers only a peer of its own uid or the machine's root, whatever the socket's mode.
//
// Answers: {"ok": true, ...}; a request refused as such → {"ok": false, "error": "a sentence",
// "invalid": true}; a failure of the machine's → {"ok": false, "error": "a sentence"}. A request is at
// most 4 KiB and must arrive within 5 s; a peer that sends more or dawdles is dropped.
#pragma once

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::lifetime {

// A listening unix socket bound at `path` with mode 0600 (a file already there is replaced). A path
// longer than a socket address holds is bound through its directory's descriptor. Throws
// std::runtime_error.
int listen_unix_socket(const std::string &path);

// fn()'s answer, or the error answer of what it threw: std::invalid_argument → "invalid": true.
nlohmann::json answer_safely(const std::function<nlohmann::json()> &fn);

class JsonLineServer {
  public:
    using Answer = std::function<nlohmann::json(const nlohmann::json &request)>;
    // Takes `listen_fd` (a listening unix socket); `answer` is called on the loop's thread, through
    // answer_safely. A line that is not a JSON object is answered with an error, unasked.
    JsonLineServer(boost::asio::io_context &io, int listen_fd, Answer answer);
    ~JsonLineServer();
    JsonLineServer(const JsonLineServer &) = delete;
    JsonLineServer &operator=(const JsonLineServer &) = delete;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Sends `request` to the socket at `path` and returns the answer's object when it says "ok". Throws
// std::invalid_argument with the server's sentence for a request refused as such, std::runtime_error
// for one that failed, when nothing listens there ("<who> cannot be asked (...): <unreachable>") or no
// answer comes within `timeout_s`.
nlohmann::json json_line_request(const std::string &path, const nlohmann::json &request, double timeout_s, const std::string &who,
                                 const std::string &unreachable = "");

}  // namespace actionhost::lifetime
