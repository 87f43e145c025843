#include "support/headless_chromium.hpp"

#include <unistd.h>

#include <actionhost/common/process/child_process.hpp>

#include <Poco/Base64Decoder.h>
#include <Poco/Buffer.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace actionhost::testing {

using Clock = std::chrono::steady_clock;

std::optional<std::string> chromium_path() {
    for (const char *c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
        if (::access(c, X_OK) == 0) return std::string(c);
    }
    return std::nullopt;
}

struct HeadlessChromium::Socket {
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    std::unique_ptr<Poco::Net::WebSocket> ws;
};

HeadlessChromium::HeadlessChromium(const std::string &chromium, const std::string &url) {
    profile_ = std::make_unique<TempDir>("ahchromium");
    std::vector<std::string> argv = {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                     "--disable-background-networking", "--disable-component-update",
                                     "--disable-sync", "--no-first-run", "--no-default-browser-check",
                                     "--user-data-dir=" + profile_->path(), "--window-size=1280,800",
                                     "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", url};
    common::SpawnSpec spec;
    spec.argv = std::move(argv);
    spec.use_pty = false;
    spec.in = common::Stream::null();
    spec.out = common::Stream::file(profile_->path() + "/chromium.log");
    spec.err = common::Stream::to_stdout();
    spec.new_session = true;  // its renderers and helpers end with it
    auto started = common::ChildProcess::spawn(spec);
    if (!started) throw std::runtime_error(started.error().message);
    child_ = std::move(started).value();

    // DevToolsActivePort: first line the port chromium picked.
    int port = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline && port == 0) {
        std::ifstream f(profile_->path() + "/DevToolsActivePort");
        if (!(f >> port)) port = 0;
        if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (port == 0) throw std::runtime_error("chromium did not open its DevTools port");

    // The page target's WebSocket.
    std::string ws_path;
    while (Clock::now() < deadline && ws_path.empty()) {
        try {
            Poco::Net::HTTPClientSession s("127.0.0.1", static_cast<Poco::UInt16>(port));
            s.setTimeout(Poco::Timespan(5, 0));
            Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_GET, "/json/list", Poco::Net::HTTPMessage::HTTP_1_1);
            s.sendRequest(req);
            Poco::Net::HTTPResponse resp;
            std::string body;
            Poco::StreamCopier::copyToString(s.receiveResponse(resp), body);
            for (const auto &t : nlohmann::json::parse(body)) {
                if (t.value("type", "") == "page" && t.contains("webSocketDebuggerUrl")) {
                    ws_path = Poco::URI(t["webSocketDebuggerUrl"].get<std::string>()).getPathAndQuery();
                    break;
                }
            }
        } catch (const std::exception &) {
        }
        if (ws_path.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (ws_path.empty()) throw std::runtime_error("chromium has no page target");
    ws_ = std::make_unique<Socket>();
    ws_->session = std::make_unique<Poco::Net::HTTPClientSession>("127.0.0.1", static_cast<Poco::UInt16>(port));
    Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_GET, ws_path, Poco::Net::HTTPMessage::HTTP_1_1);
    Poco::Net::HTTPResponse resp;
    ws_->ws = std::make_unique<Poco::Net::WebSocket>(*ws_->session, req, resp);
    ws_->ws->setMaxPayloadSize(64 * 1024 * 1024);
}

HeadlessChromium::~HeadlessChromium() {
    ws_.reset();
    child_.reset();  // SIGKILL to its session, then reaped
}

nlohmann::json HeadlessChromium::call(const std::string &method, const nlohmann::json &params, double timeout_s) {
    const int id = next_id_++;
    const std::string msg = nlohmann::json{{"id", id}, {"method", method}, {"params", params}}.dump();
    ws_->ws->sendFrame(msg.data(), static_cast<int>(msg.size()), Poco::Net::WebSocket::FRAME_TEXT);
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    Poco::Buffer<char> buf(0);
    // Bounded by the deadline; events that are not our answer are skipped.
    while (Clock::now() < deadline) {
        ws_->ws->setReceiveTimeout(Poco::Timespan(1, 0));
        buf.resize(0);
        int flags = 0;
        int n = 0;
        try {
            n = ws_->ws->receiveFrame(buf, flags);
        } catch (const Poco::TimeoutException &) {
            continue;
        }
        if (n <= 0) throw std::runtime_error("DevTools connection closed");
        auto j = nlohmann::json::parse(std::string(buf.begin(), static_cast<size_t>(n)), nullptr, false);
        if (j.is_object() && j.value("id", -1) == id) {
            if (j.contains("error")) throw std::runtime_error(method + ": " + j["error"].dump());
            return j["result"];
        }
    }
    throw std::runtime_error(method + ": no answer within the time limit");
}

nlohmann::json HeadlessChromium::evaluate(const std::string &expression) {
    auto r = call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}});
    return r["result"].value("value", nlohmann::json());
}

bool HeadlessChromium::wait_for(const std::string &expression, double timeout_s) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (Clock::now() < deadline) {
        try {
            if (evaluate(expression) == true) return true;
        } catch (const std::exception &) {
            // A navigation (the token redirect) can drop an evaluation; try again.
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
}

void HeadlessChromium::press_key(const std::string &key, const std::string &code, int key_code, int modifiers,
                                 const std::string &text) {
    for (const std::string type : {"keyDown", "keyUp"}) {
        nlohmann::json event = {{"type", type},
                                {"key", key},
                                {"code", code},
                                {"windowsVirtualKeyCode", key_code},
                                {"nativeVirtualKeyCode", key_code},
                                {"modifiers", modifiers}};
        if (type == "keyDown" && !text.empty()) event["text"] = text;
        call("Input.dispatchKeyEvent", event);
    }
}

void HeadlessChromium::insert_text(const std::string &text) { call("Input.insertText", {{"text", text}}); }

void HeadlessChromium::screenshot(const std::string &path) {
    auto r = call("Page.captureScreenshot", {{"format", "png"}}, 60);
    std::istringstream in(r["data"].get<std::string>());
    Poco::Base64Decoder decoder(in);
    std::ofstream out(path, std::ios::binary);
    Poco::StreamCopier::copyStream(decoder, out);
}

std::string HeadlessChromium::outer_html() {
    auto v = evaluate("document.documentElement.outerHTML");
    return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace actionhost::testing
