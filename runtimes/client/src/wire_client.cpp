#include "actionhost/client/wire_client.hpp"

#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "actionhost/client/errors.hpp"
#include "local_tree.hpp"
#include "temp_file.hpp"
#include <actionhost/common/archive/zip_writer.hpp>
#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/random.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::client {

using nlohmann::json;
namespace fs = std::filesystem;

double backoff_wait(int attempt, double min_s, double max_s) {
    double w = min_s * std::pow(2.0, std::max(0, attempt - 1));
    return std::min(std::max(w, min_s), max_s);
}

WireClient::WireClient(const std::string &base_url, std::string session_api_key, WirePolicy policy)
    : base_url_(base_url), api_key_(std::move(session_api_key)), policy_(policy),
      connection_(std::make_unique<HttpConnection>(parse_base_url(base_url))) {}

WireClient::~WireClient() = default;

namespace {

std::string detail_of(const HttpResponse &r) {
    try {
        json body = json::parse(r.body);
        if (body.is_object() && body.contains("detail"))
            return body["detail"].is_string() ? body["detail"].get<std::string>() : actionhost::common::dump_json(body["detail"]);
    } catch (...) {
    }
    return r.body;
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

HttpResponse WireClient::request(HttpRequest req) {
    if (!api_key_.empty()) req.headers.emplace_back("X-Session-API-Key", api_key_);
    int closed_tries = 0, busy_tries = 0;
    for (;;) {
        HttpResponse r;
        if (req.on_attempt) req.on_attempt();
        try {
            r = connection_->send(req);
            if (observer_) observer_(req, r);
        } catch (const TransportError &e) {
            if (observer_) observer_(req, HttpResponse{});
            if (e.kind() == TransportFailure::Timeout)
                throw WireTimeout("Runtime failed to return execute_action before the requested timeout of " +
                                  std::to_string(static_cast<int>(req.timeout_s)) + "s (" + e.what() + ")");
            if (e.kind() == TransportFailure::Closed && ++closed_tries < policy_.closed_attempts) {
                sleep_s(backoff_wait(closed_tries, policy_.closed_wait_min_s, policy_.closed_wait_max_s));
                continue;
            }
            if (e.kind() == TransportFailure::Refused && closed_tries > 0)
                // It answered a moment ago, dropped this request and now listens no more: the host died
                // mid-request (a crashing plugin takes it down, being in its process).
                throw WireError("The runtime at " + base_url_ + " died while handling " + req.path +
                                ": it closed the connection and now refuses new ones (" + e.what() +
                                "). The action may have been partly done; its host log says why it stopped.");
            throw WireError(std::string("Cannot reach the runtime at ") + base_url_ + ": " + e.what());
        }
        if (r.status == 429 && ++busy_tries < policy_.too_many_attempts) {
            sleep_s(backoff_wait(busy_tries, policy_.too_many_wait_min_s, policy_.too_many_wait_max_s));
            continue;
        }
        if (r.status < 200 || r.status >= 300) {
            std::string detail = detail_of(r);
            throw WireError("HTTP " + std::to_string(r.status) + " from " + req.path + ": " + detail, r.status, detail);
        }
        return r;
    }
}

bool WireClient::alive() {
    HttpRequest req;
    req.path = "/alive";
    req.timeout_s = policy_.alive_timeout_s;
    try {
        return connection_->send(req).status == 200;
    } catch (const TransportError &) {
        return false;
    }
}

bool WireClient::wait_alive(double timeout_s, double interval_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    // Polls start fast (a local host is alive in milliseconds) and back off to 2 s as OpenHands polls.
    double wait = interval_s;
    for (int i = 0; i < 1000000; ++i) {
        if (alive()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        sleep_s(wait);
        wait = std::min(wait * 1.5, 2.0);
    }
    return false;
}

json WireClient::execute(json action, const std::string &session) {
    if (!action.is_object()) throw WireError("An action must be a JSON object");
    json args = action.value("args", json::object());
    std::string kind = action.value("action", "");
    // What OpenHands' client answers without the server.
    if (kind == "think") return {{"observation", "think"}, {"content", "Your thought has been logged."}, {"extras", json::object()}, {"message", "Your thought has been logged."}};
    std::string confirmation = args.is_object() ? args.value("confirmation_state", "confirmed") : "confirmed";
    if (confirmation == "awaiting_confirmation") return {{"observation", "null"}, {"content", ""}, {"extras", json::object()}, {"message", "No observation"}};
    if (confirmation == "rejected")
        return {{"observation", "user_rejected"},
                {"content", "Action has been rejected by the user! Waiting for further user input."},
                {"extras", json::object()},
                {"message", "Action has been rejected by the user! Waiting for further user input."}};
    if (!action.contains("timeout") || action["timeout"].is_null()) action["timeout"] = policy_.default_action_timeout_s;
    double timeout = action["timeout"].is_number() ? action["timeout"].get<double>() : policy_.default_action_timeout_s;
    json body = {{"action", action}};
    if (!session.empty()) body["session"] = session;
    HttpRequest req;
    req.method = "POST";
    req.path = "/execute_action";
    req.body = actionhost::common::dump_json(body);
    req.content_type = "application/json";
    req.timeout_s = timeout + policy_.execute_extra_s;
    // A fresh idempotency key per action, kept by request()'s retries: when the connection drops
    // mid-action, the host answers the retry with the first run's observation instead of running the
    // action again (SWE-ReX's X-Request-ID).
    req.headers.emplace_back("X-Request-ID", common::random_uuid4());
    HttpResponse r = request(std::move(req));
    json obs;
    try {
        obs = json::parse(r.body);
    } catch (const std::exception &e) {
        throw WireError(std::string("The runtime answered /execute_action with invalid JSON: ") + e.what(), r.status);
    }
    if (args.is_object() && args.value("hidden", false) && obs.is_object()) obs["extras"]["hidden"] = true;
    return obs;
}

json WireClient::list_files(const std::optional<std::string> &path, bool detail) {
    json body = json::object();
    if (path) body["path"] = *path;
    if (detail) body["detail"] = true;  // additive: an OpenHands host never sees the key unless asked for it
    HttpRequest req;
    req.method = "POST";
    req.path = "/list_files";
    req.body = actionhost::common::dump_json(body);
    req.content_type = "application/json";
    req.timeout_s = policy_.list_files_timeout_s;
    return json::parse(request(std::move(req)).body);
}

json WireClient::upload_bytes(const std::string &filename, const std::string &content, const std::string &dest,
                              bool recursive) {
    auto [body, type] = multipart_file("file", filename, content);
    std::string query;
    Poco::URI::encode(dest, "&=?#+ ", query);
    HttpRequest req;
    req.method = "POST";
    req.path = "/upload_file?destination=" + query + "&recursive=" + (recursive ? "true" : "false");
    req.body = std::move(body);
    req.content_type = type;
    req.timeout_s = policy_.upload_timeout_s;
    return json::parse(request(std::move(req)).body);
}

json WireClient::upload_file(const std::string &path, const std::string &filename, const std::string &dest, bool recursive) {
    const MultipartFile body("file", filename, path);
    std::string query;
    Poco::URI::encode(dest, "&=?#+ ", query);
    HttpRequest req;
    req.method = "POST";
    req.path = "/upload_file?destination=" + query + "&recursive=" + (recursive ? "true" : "false");
    req.write_body = [&body](std::ostream &out) { body.write(out); };
    req.content_type = body.content_type();
    req.timeout_s = policy_.upload_timeout_s;
    return json::parse(request(std::move(req)).body);
}

json WireClient::upload(const std::string &local_path, const std::string &dest, bool recursive, std::vector<std::string> *skipped) {
    using common::archive::ZipEntryAttributes;
    fs::path src(local_path);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(src, ec))) throw WireError("No such file or directory: " + local_path);
    detail::TempFile zip_file("upload");
    auto created = common::archive::ZipWriter::create(zip_file.path());
    if (!created) throw WireError("Cannot write the archive of " + local_path + ": " + created.error().message);
    common::archive::ZipWriter &zip = *created.value();
    auto check = [&](const common::Status &added) {
        if (!added) throw WireError("Cannot write the archive of " + local_path + ": " + added.error().message);
    };
    // Each file with its permission bits and modification time, links as links (zip_writer.hpp): the
    // host (ours) honours them; OpenHands' unpacks the files as before.
    auto add_file = [&](const std::string &name, int fd) {
        struct stat st{};
        if (::fstat(fd, &st) != 0) throw WireError("Cannot read " + local_path + ": " + std::strerror(errno));
        check(zip.add_file(name, fd, ZipEntryAttributes{static_cast<uint32_t>(st.st_mode & 07777), st.st_mtime}));
    };
    if (recursive || fs::is_directory(src, ec)) {
        // OpenHands zips the directory with names relative to its parent (the directory name is kept).
        // The tree is looked at without following links out of it (local_tree.hpp) before anything is
        // read; the zip is written to a temporary file as each file is read, then sent from there.
        fs::path base = fs::absolute(src).lexically_normal();
        if (base.filename().empty()) base = base.parent_path();
        const std::string top = base.filename().string() + "/";
        const detail::LocalTree tree = detail::scan_local_tree(base.string());
        struct stat top_st{};
        ::fstat(tree.root.get(), &top_st);
        check(zip.add_directory(top, ZipEntryAttributes{static_cast<uint32_t>(top_st.st_mode & 07777), top_st.st_mtime}));
        for (const auto &entry : tree.entries) {
            const ZipEntryAttributes attributes{entry.mode, entry.mtime};
            if (entry.directory) check(zip.add_directory(top + entry.name + "/", attributes));
            else if (entry.link) check(zip.add_symlink(top + entry.name, entry.target, attributes));
            else add_file(top + entry.name, detail::open_local_entry(tree, entry.name).get());
        }
        check(zip.close());
        if (skipped) skipped->insert(skipped->end(), tree.skipped.begin(), tree.skipped.end());
        return upload_file(zip_file.path(), base.filename().string() + ".zip", dest, true);
    }
    std::string why;
    common::io::UniqueFd file = detail::open_local_file(local_path, why);
    if (!file) {
        if (skipped) skipped->push_back(why);
        throw WireError("Cannot copy " + why);
    }
    // The file as it was opened (never by its name again: a link swapped in meanwhile changes nothing),
    // zipped alone so that its mode and time go with it: unpacked into `dest`, it lands where a plain
    // upload would (dest/NAME), and a file whose own name ends in .zip is no longer unpacked there.
    add_file(src.filename().string(), file.get());
    check(zip.close());
    return upload_file(zip_file.path(), src.filename().string() + ".zip", dest, true);
}

std::string WireClient::download(const std::string &sandbox_path, uint64_t max_bytes) {
    std::string zip;
    if (connection_->endpoint().in_process) {
        std::string query;
        Poco::URI::encode(sandbox_path, "&=?#+ ", query);
        HttpRequest req;
        req.path = "/download_files?path=" + query;
        req.timeout_s = policy_.download_timeout_s;
        zip = request(std::move(req)).body;
    } else {
        detail::TempFile file("download");
        download_to(sandbox_path, file.fd(), max_bytes);
        if (::lseek(file.fd(), 0, SEEK_SET) != 0) throw WireError(std::string("Cannot read the download: ") + std::strerror(errno));
        char buf[65536];
        for (ssize_t n; (n = ::read(file.fd(), buf, sizeof buf)) != 0;) {
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw WireError(std::string("Cannot read the download: ") + std::strerror(errno));
            zip.append(buf, static_cast<size_t>(n));
        }
    }
    if (zip.size() > max_bytes)
        throw WireError("The download of " + sandbox_path + " is larger than " + std::to_string(max_bytes) + " bytes");
    return zip;
}

void WireClient::download_to(const std::string &sandbox_path, int out_fd, uint64_t max_bytes) {
    const auto too_big = [&] {
        return WireError("The download of " + sandbox_path + " is larger than " + std::to_string(max_bytes) +
                         " bytes; nothing was unpacked (a larger limit may be set)");
    };
    auto write_all = [out_fd](std::string_view piece) {
        for (size_t done = 0; done < piece.size();) {
            const ssize_t n = ::write(out_fd, piece.data() + done, piece.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) throw WireError(std::string("Cannot store the download: ") + std::strerror(errno));
            done += static_cast<size_t>(n);
        }
    };
    if (connection_->endpoint().in_process) {
        // A runtime in this process hands its answer over as a buffer; it is this process's own host.
        write_all(download(sandbox_path, max_bytes));
        return;
    }
    std::string query;
    Poco::URI::encode(sandbox_path, "&=?#+ ", query);
    HttpRequest req;
    req.path = "/download_files?path=" + query;
    req.timeout_s = policy_.download_timeout_s;  // per piece: a large download may take longer in all
    uint64_t got = 0;
    bool over = false;
    std::string head;  // the first bytes, the detail of an error answer
    req.on_attempt = [&] {
        got = 0;
        over = false;
        head.clear();
        if (::ftruncate(out_fd, 0) != 0 || ::lseek(out_fd, 0, SEEK_SET) != 0)
            throw WireError(std::string("Cannot store the download: ") + std::strerror(errno));
    };
    req.on_body = [&](std::string_view piece) {
        got += piece.size();
        if (got > max_bytes) {
            over = true;
            return false;
        }
        if (head.size() < 4096) head.append(piece.substr(0, 4096 - head.size()));
        write_all(piece);
        return true;
    };
    try {
        request(std::move(req));
    } catch (const WireError &e) {
        if (over) throw too_big();
        if (e.status() == 0) throw;
        HttpResponse r;
        r.status = e.status();
        r.body = head;
        const std::string detail = detail_of(r);
        throw WireError("HTTP " + std::to_string(e.status()) + " from /download_files: " + detail, e.status(), detail);
    }
    if (over) throw too_big();
}

json WireClient::server_info() {
    HttpRequest req;
    req.path = "/server_info";
    req.timeout_s = policy_.default_timeout_s;
    return json::parse(request(std::move(req)).body);
}

std::string WireClient::metrics() {
    HttpRequest req;
    req.path = "/metrics";
    req.timeout_s = policy_.default_timeout_s;
    return request(std::move(req)).body;
}

json WireClient::logs(uint64_t since, int wait_s) {
    HttpRequest req;
    req.path = "/logs?since=" + std::to_string(since) + "&wait=" + std::to_string(wait_s);
    req.timeout_s = policy_.default_timeout_s + wait_s;  // the host holds a long poll up to wait_s
    return json::parse(request(std::move(req)).body);
}

}  // namespace actionhost::client
