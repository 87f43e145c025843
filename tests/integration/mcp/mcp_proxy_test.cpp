// OpenHands' MCP proxy through the real host: POST /update_mcp_server with stdio servers the test writes
// (Python, standard library only), then their tools over Streamable HTTP (/mcp) and SSE (/mcp/sse).
#include <gtest/gtest.h>
#include <signal.h>

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>

#include <chrono>
#include <regex>
#include <thread>

#include "support/host_process.hpp"
#include "support/socket_holders.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
using json = nlohmann::json;

namespace {

// A stdio MCP server: newline-delimited JSON-RPC on stdin/stdout; its name is argv[1].
const char *kServer = R"PY(import json, os, sys
NAME = sys.argv[1]
TOOLS = [
    {"name": "add", "description": "a + b", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
    {"name": "echo", "description": "echo text", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "getenv", "description": "an environment variable", "inputSchema": {"type": "object"}},
    {"name": "pid", "description": "the server's pid", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "answers a JSON-RPC error", "inputSchema": {"type": "object"}},
    {"name": "crash", "description": "exits at once", "inputSchema": {"type": "object"}},
    {"name": "sleep", "description": "sleeps", "inputSchema": {"type": "object"}},
]
if len(sys.argv) > 2:
    TOOLS.append({"name": sys.argv[2], "description": "extra", "inputSchema": {"type": "object"}})

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

def text(mid, t):
    send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": t}], "isError": False}})

for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if method == "initialize" and NAME == "mute":
        continue  # never answers: a server that hangs at start
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": msg["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": NAME, "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name, args = msg["params"]["name"], msg["params"].get("arguments", {})
        if name == "add":
            text(mid, str(args["a"] + args["b"]))
        elif name == "echo":
            text(mid, args["text"] + " from " + NAME)
        elif name == "getenv":
            text(mid, os.environ.get(args["name"], "<unset>"))
        elif name == "pid":
            text(mid, str(os.getpid()))
        elif name == "fail":
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32000, "message": "deliberate failure"}})
        elif name == "sleep":
            import time
            time.sleep(args["seconds"])
            text(mid, "slept")
        elif name == "crash":
            sys.stderr.write("boom: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        else:
            text(mid, "extra tool " + name + " of " + NAME)
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + str(method)}})
)PY";

bool process_running(int pid) { return pid > 0 && kill(pid, 0) == 0; }

class McpProxy : public ::testing::Test {
  protected:
    // `isolated`: the mcp plugin runs in a worker process of the host (host.isolate), its streamed
    // routes forwarded over the worker's socket.
    void start_host(const std::string &api_key = "", const std::string &timeout_s = "60", bool isolated = false) {
        write_file(dir_ / "server.py", kServer);
        HostOptions o;
        o.api_key = api_key;
        if (isolated) o.args = {"--set", "host.isolate=mcp"};
        o.env["ACTIONHOST_MCP_CALL_TIMEOUT"] = timeout_s;
        o.env["ACTIONHOST_MCP_START_TIMEOUT"] = timeout_s;
        host_ = std::make_unique<HostProcess>(o);
    }
    json server(const std::string &name, std::vector<std::string> extra = {}, json env = json::object()) {
        std::vector<std::string> args = {dir_ / "server.py", name};
        args.insert(args.end(), extra.begin(), extra.end());
        return {{"name", name}, {"command", "/usr/bin/python3"}, {"args", args}, {"env", env}};
    }
    HttpResponse update(const json &servers) { return host_->post_json("/update_mcp_server", servers.dump()); }

    // Streamable HTTP: one POST of a JSON-RPC message in session `sid_`.
    HttpResponse post(const json &msg, bool with_session = true) {
        Headers h = {{"Accept", "application/json, text/event-stream"}};
        if (with_session && !sid_.empty()) h.push_back({"Mcp-Session-Id", sid_});
        return host_->post_json("/mcp", msg.dump(), h);
    }
    void initialize() {
        auto r = post({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
                       {"params", {{"protocolVersion", "2025-03-26"}, {"capabilities", json::object()},
                                   {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}});
        ASSERT_EQ(r.status, 200) << r.body;
        sid_ = r.headers["mcp-session-id"];
        ASSERT_TRUE(std::regex_match(sid_, std::regex("[0-9a-f]{32}"))) << sid_;
        EXPECT_EQ(r.json()["result"]["protocolVersion"], "2025-03-26");
        EXPECT_EQ(r.json()["result"]["capabilities"]["tools"]["listChanged"], true);
        EXPECT_EQ(post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).status, 202);
    }
    json call(const std::string &tool, json args, int id = 7) {
        auto r = post({{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", args}}}});
        EXPECT_EQ(r.status, 200) << r.body;
        return r.json();
    }
    std::vector<std::string> tool_names() {
        auto r = post({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}});
        EXPECT_EQ(r.status, 200) << r.body;
        std::vector<std::string> names;
        const json body = r.json();  // kept: the loop below walks into it
        for (const auto &t : body["result"]["tools"]) names.push_back(t["name"]);
        return names;
    }
    static std::string text_of(const json &response) { return response["result"]["content"][0]["text"]; }
    // The SSE transport end to end: the endpoint event, then messages posted and answered on the stream.
    void expect_sse_tool_calls();

    TempDir dir_{"ahmcp"};
    std::unique_ptr<HostProcess> host_;
    std::string sid_;
};

// An SSE client of GET /mcp/sse: events read one at a time, each wait bounded by the socket timeout.
class SseClient {
  public:
    SseClient(int port, const std::string &path, const std::string &api_key = "") : session_("127.0.0.1", static_cast<Poco::UInt16>(port)) {
        session_.setTimeout(Poco::Timespan(60, 0));
        Poco::Net::HTTPRequest req("GET", path, Poco::Net::HTTPMessage::HTTP_1_1);
        req.set("Accept", "text/event-stream");
        if (!api_key.empty()) req.set("X-Session-API-Key", api_key);
        session_.sendRequest(req);
        in_ = &session_.receiveResponse(resp_);
    }
    int status() const { return resp_.getStatus(); }
    std::string content_type() const { return resp_.getContentType(); }
    // The next event as {event, data}; comments (keep-alives) are skipped.
    std::pair<std::string, std::string> next() {
        std::string event = "message", data, line;
        while (std::getline(*in_, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.empty()) {
                if (!data.empty()) return {event, data};
                continue;
            }
            if (line[0] == ':') continue;
            if (line.rfind("event: ", 0) == 0) event = line.substr(7);
            if (line.rfind("data: ", 0) == 0) data += line.substr(6);
        }
        return {"<closed>", ""};
    }

  private:
    Poco::Net::HTTPClientSession session_;
    Poco::Net::HTTPResponse resp_;
    std::istream *in_ = nullptr;
};

TEST_F(McpProxy, UpdateAnswersAsOpenHandsAndRefusesBadBodies) {
    start_host();
    // Nothing is mounted before the first update.
    EXPECT_EQ(host_->get("/mcp/sse").status, 404);
    auto r = update(json::array({server("calc")}));
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"detail":"MCP server updated successfully","router_error_log":""})");
    auto not_list = host_->post_json("/update_mcp_server", R"({"name":"x"})");
    EXPECT_EQ(not_list.status, 400);
    EXPECT_EQ(not_list.body, R"({"detail":"Request must be a list of MCP tools to sync"})");
    auto bad_name = host_->post_json("/update_mcp_server", R"([{"name":"a b","command":"x"}])");
    EXPECT_EQ(bad_name.status, 422);
    EXPECT_NE(bad_name.json()["errors"].get<std::string>().find("Server name can only contain"), std::string::npos);
    auto bad_cmd = host_->post_json("/update_mcp_server", R"([{"name":"a","command":"npx -y"}])");
    EXPECT_EQ(bad_cmd.status, 422);
    EXPECT_EQ(host_->get("/update_mcp_server").status, 405);
    // A server that cannot start is reported, the others serve.
    auto partly = update(json::array({server("calc"), {{"name", "ghost"}, {"command", "no-such-mcp-server"}}}));
    ASSERT_EQ(partly.status, 200);
    EXPECT_NE(partly.json()["router_error_log"].get<std::string>().find("MCP server 'ghost' failed to start: command not found: no-such-mcp-server"),
              std::string::npos) << partly.body;
    initialize();
    EXPECT_EQ(text_of(call("calc_add", {{"a", 1}, {"b", 2}})), "3");
}

TEST_F(McpProxy, StreamableHttpCallsAToolOfTheStdioServer) {
    start_host();
    ASSERT_EQ(update(json::array({server("calc", {}, {{"GREETING", "hi there"}})})).status, 200);
    initialize();
    auto names = tool_names();
    EXPECT_EQ(names, (std::vector<std::string>{"add", "echo", "getenv", "pid", "fail", "crash", "sleep"}));  // one server: no prefix
    EXPECT_EQ(text_of(call("add", {{"a", 2}, {"b", 3}})), "5");
    EXPECT_EQ(text_of(call("getenv", {{"name", "GREETING"}})), "hi there");
    // The host's own environment stays with the host.
    EXPECT_EQ(text_of(call("getenv", {{"name", "ACTIONHOST_MCP_CALL_TIMEOUT"}})), "<unset>");
    // Errors are JSON-RPC errors: unknown tool, the server's own error, unknown method.
    auto unknown = call("nope", json::object());
    EXPECT_EQ(unknown["error"]["code"], -32602);
    EXPECT_EQ(unknown["error"]["message"], "Unknown tool: nope");
    EXPECT_EQ(unknown["id"], 7);
    auto failed = call("fail", json::object());
    EXPECT_EQ(failed["error"]["code"], -32000);
    EXPECT_EQ(failed["error"]["message"], "deliberate failure");
    auto method = post({{"jsonrpc", "2.0"}, {"id", 9}, {"method", "sampling/createMessage"}});
    EXPECT_EQ(method.json()["error"]["code"], -32601);
    // A batch answers as an array, in order.
    auto batch = post(json::array({{{"jsonrpc", "2.0"}, {"id", "a"}, {"method", "ping"}},
                                   {{"jsonrpc", "2.0"}, {"id", "b"}, {"method", "tools/call"},
                                    {"params", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}}}}));
    ASSERT_EQ(batch.status, 200) << batch.body;
    EXPECT_EQ(batch.json()[0]["id"], "a");
    EXPECT_EQ(batch.json()[1]["result"]["content"][0]["text"], "x from calc");
    // Session rules.
    auto no_session = post({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}, false);
    EXPECT_EQ(no_session.status, 400);
    EXPECT_EQ(no_session.json()["error"]["message"], "Bad Request: Missing session ID");
    auto parse = host_->post_json("/mcp", "{not json", {{"Mcp-Session-Id", sid_}});
    EXPECT_EQ(parse.status, 400);
    EXPECT_EQ(parse.json()["error"]["code"], -32700);
    EXPECT_EQ(host_->get("/mcp", {{"Mcp-Session-Id", "00000000000000000000000000000000"}}).status, 404);
    EXPECT_EQ(host_->execute_raw({{"action", "run"}, {"args", {{"command", "true"}}}}).status, 200);
    auto del = Http("127.0.0.1", host_->port()).request("DELETE", "/mcp", "", "", {{"Mcp-Session-Id", sid_}});
    EXPECT_EQ(del.status, 200);
    EXPECT_EQ(post({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}).status, 404);
}

void McpProxy::expect_sse_tool_calls() {
    SseClient sse(host_->port(), "/mcp/sse");
    ASSERT_EQ(sse.status(), 200);
    EXPECT_EQ(sse.content_type(), "text/event-stream; charset=utf-8");
    auto [event, endpoint] = sse.next();
    EXPECT_EQ(event, "endpoint");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(endpoint, m, std::regex("/mcp/messages/\\?session_id=([0-9a-f]{32})"))) << endpoint;
    auto send = [&](const json &msg) {
        auto r = host_->post_json(endpoint, msg.dump());
        EXPECT_EQ(r.status, 202) << r.body;
        EXPECT_EQ(r.body, "Accepted");
    };
    send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
          {"params", {{"protocolVersion", "2024-11-05"}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    auto [e1, init] = sse.next();
    EXPECT_EQ(e1, "message");
    EXPECT_EQ(json::parse(init)["result"]["protocolVersion"], "2024-11-05");
    send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", "add"}, {"arguments", {{"a", 20}, {"b", 22}}}}}});
    auto reply = json::parse(sse.next().second);
    EXPECT_EQ(reply["id"], 2);
    EXPECT_EQ(reply["result"]["content"][0]["text"], "42");
    send({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "missing"}}}});
    EXPECT_EQ(json::parse(sse.next().second)["error"]["message"], "Unknown tool: missing");
    // The messages endpoint's refusals (texts of the mcp SDK's SSE transport).
    auto plain = [&](const std::string &path, const std::string &body = "{}") { return host_->post_json(path, body); };
    EXPECT_EQ(plain("/mcp/messages/").body, "session_id is required");
    EXPECT_EQ(plain("/mcp/messages/?session_id=xyz").body, "Invalid session ID");
    auto gone = plain("/mcp/messages/?session_id=0123456789abcdef0123456789abcdef");
    EXPECT_EQ(gone.status, 404);
    EXPECT_EQ(gone.body, "Could not find session");
    EXPECT_EQ(plain(endpoint, "{oops").status, 400);
    // The root mount serves the same app.
    SseClient root(host_->port(), "/sse");
    EXPECT_EQ(root.next().second.rfind("/messages/?session_id=", 0), 0u);
}

TEST_F(McpProxy, SseTransportCallsAToolAtTheOpenHandsPaths) {
    start_host();
    ASSERT_EQ(update(json::array({server("calc")})).status, 200);
    expect_sse_tool_calls();
}

// The mcp plugin isolated (host.isolate=mcp): its streamed routes (actionhost.http_stream_routes/1) are
// served from its worker process — headers, complete answers and SSE streams alike — and an open stream
// still ends promptly when the host stops.
TEST_F(McpProxy, AnIsolatedPluginServesItsStreamsFromItsWorker) {
    start_host("", "60", true);
    ASSERT_EQ(update(json::array({server("calc")})).status, 200);
    expect_sse_tool_calls();
    initialize();  // Streamable HTTP: a header (Mcp-Session-Id) and complete answers
    EXPECT_EQ(text_of(call("add", {{"a", 1}, {"b", 2}})), "3");
    EXPECT_NE(host_->log().find("in a process of its own"), std::string::npos) << host_->log();
    EXPECT_EQ(host_->log().find("started again"), std::string::npos) << "the worker died: " << host_->log();
    SseClient open_stream(host_->port(), "/mcp/sse");
    ASSERT_EQ(open_stream.next().first, "endpoint");
    const auto t0 = std::chrono::steady_clock::now();
    const int status = host_->stop();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST_F(McpProxy, NeedsTheSessionKeyOnEveryMcpPath) {
    start_host("mcp-secret");
    ASSERT_EQ(update(json::array({server("calc")})).status, 200);
    Http anonymous("127.0.0.1", host_->port());
    for (const char *path : {"/update_mcp_server", "/mcp", "/mcp/messages/?session_id=0123456789abcdef0123456789abcdef"}) {
        auto r = anonymous.post_json(path, "[]");
        EXPECT_EQ(r.status, 403) << path;
        EXPECT_EQ(r.body, R"({"detail":"Invalid API Key"})");
    }
    EXPECT_EQ(anonymous.get("/mcp/sse", {{"X-Session-API-Key", "wrong"}}).status, 403);
    SseClient keyed(host_->port(), "/mcp/sse", "mcp-secret");
    EXPECT_EQ(keyed.status(), 200);
    EXPECT_EQ(keyed.next().first, "endpoint");
    initialize();  // HostProcess sends the key
    EXPECT_EQ(text_of(call("add", {{"a", 1}, {"b", 1}})), "2");
}

TEST_F(McpProxy, SeveralServersArePrefixedAndCallsReachTheirOwner) {
    start_host();
    // "a_b"+"c" and "a"+"b_c" both expose "a_b_c": the server listed first keeps it.
    ASSERT_EQ(update(json::array({server("a_b", {"c"}), server("a", {"b_c"})})).status, 200);
    initialize();
    auto names = tool_names();
    EXPECT_EQ(std::count(names.begin(), names.end(), "a_b_c"), 1);
    EXPECT_NE(std::find(names.begin(), names.end(), "a_b_echo"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "a_echo"), names.end());
    EXPECT_EQ(text_of(call("a_b_echo", {{"text", "hi"}})), "hi from a_b");
    EXPECT_EQ(text_of(call("a_echo", {{"text", "hi"}})), "hi from a");
    EXPECT_EQ(text_of(call("a_b_c", json::object())), "extra tool c of a_b");
}

TEST_F(McpProxy, ACrashingServerGivesAnErrorAndIsRestarted) {
    start_host();
    ASSERT_EQ(update(json::array({server("calc")})).status, 200);
    initialize();
    const int pid = std::stoi(text_of(call("pid", json::object())));
    auto crashed = call("crash", json::object());
    ASSERT_TRUE(crashed.contains("error")) << crashed;
    EXPECT_EQ(crashed["error"]["code"], -32603);
    const std::string msg = crashed["error"]["message"];
    EXPECT_NE(msg.find("MCP server 'calc' exited with status 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("boom: crashing on purpose"), std::string::npos) << msg;
    // The next call starts it again.
    EXPECT_EQ(text_of(call("add", {{"a", 4}, {"b", 4}})), "8");
    const int again = std::stoi(text_of(call("pid", json::object())));
    EXPECT_NE(again, pid);
    EXPECT_FALSE(process_running(pid));
}

TEST_F(McpProxy, AnUpdateReplacesTheServersAndTellsStreams) {
    start_host();
    ASSERT_EQ(update(json::array({server("one")})).status, 200);
    initialize();
    const int old_pid = std::stoi(text_of(call("pid", json::object())));
    SseClient sse(host_->port(), "/mcp/sse");
    ASSERT_EQ(sse.next().first, "endpoint");
    ASSERT_EQ(update(json::array({server("two"), server("three")})).status, 200);
    auto note = json::parse(sse.next().second);
    EXPECT_EQ(note["method"], "notifications/tools/list_changed");
    for (int i = 0; i < 100 && process_running(old_pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(process_running(old_pid));
    EXPECT_EQ(text_of(call("two_echo", {{"text", "x"}})), "x from two");
    auto stale = call("echo", {{"text", "x"}});
    EXPECT_EQ(stale["error"]["message"], "Unknown tool: echo");
    const int pid = std::stoi(text_of(call("three_pid", json::object())));
    // An empty list unmounts everything (and stops the servers).
    ASSERT_EQ(update(json::array()).status, 200);
    EXPECT_EQ(host_->get("/mcp/sse").status, 404);
    for (int i = 0; i < 100 && process_running(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(process_running(pid));
}

TEST_F(McpProxy, SlowAndMuteServersAreBoundedByTheTimeouts) {
    start_host("", "5");  // generous for a healthy start on a loaded machine, short for the test
    auto r = update(json::array({server("calc"), server("mute")}));
    ASSERT_EQ(r.status, 200);
    EXPECT_NE(r.json()["router_error_log"].get<std::string>().find("MCP server 'mute' failed to start: initialize failed: "
                                                                    "MCP server 'mute' did not answer initialize within 5 s"),
              std::string::npos) << r.body;
    initialize();
    auto slow = call("calc_sleep", {{"seconds", 30}});
    ASSERT_TRUE(slow.contains("error")) << slow;
    EXPECT_EQ(slow["error"]["message"], "MCP server 'calc' did not answer tools/call within 5 s");
}

TEST_F(McpProxy, ServersInheritNoneOfTheHostsSockets) {
    start_host();
    ASSERT_EQ(update(json::array({server("calc")})).status, 200);
    initialize();
    const int pid = std::stoi(text_of(call("pid", json::object())));
    ASSERT_TRUE(process_running(pid));
    EXPECT_EQ(processes_holding_listener(host_->port()), std::set<pid_t>{host_->pid()});
}

TEST_F(McpProxy, ServersStopWithTheHost) {
    start_host();
    ASSERT_EQ(update(json::array({server("calc")})).status, 200);
    initialize();
    const int pid = std::stoi(text_of(call("pid", json::object())));
    SseClient open_stream(host_->port(), "/mcp/sse");  // a stream still open must not hold the host up
    ASSERT_EQ(open_stream.next().first, "endpoint");
    const auto t0 = std::chrono::steady_clock::now();
    const int status = host_->stop();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_FALSE(process_running(pid));
}

}  // namespace
