// The host's file viewer over real HTTP: the HTML page for a PDF and a PNG written here (the file's
// bytes must come back out of the page's base64), and OpenHands' 403/400/404/422/500 answers.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <Poco/Base64Decoder.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketStream.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/URI.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <thread>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;

namespace {

// A one-page PDF with a line of text, its cross-reference table computed from the real offsets.
std::string make_pdf(const std::string &text) {
    std::vector<std::string> objects = {
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        "",  // the content stream, below
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"};
    const std::string stream = "BT /F1 18 Tf 20 70 Td (" + text + ") Tj ET";
    objects[3] = "<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream + "\nendstream";
    std::string pdf = "%PDF-1.4\n";
    std::vector<size_t> offsets;
    for (size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (size_t off : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

// A real 4x3 RGB PNG, written by Python's zlib and struct (the test needs a valid one, not a fixture).
void write_png(const std::string &path) {
    const std::string script =
        "import struct, sys, zlib\n"
        "w, h = 4, 3\n"
        "raw = b''.join(b'\\x00' + b''.join(bytes((x * 60, y * 80, 200)) for x in range(w)) for y in range(h))\n"
        "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)\n"
        "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))"
        " + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')\n"
        "open(sys.argv[1], 'wb').write(png)\n";
    auto r = run_process({"/usr/bin/python3", "-c", script, path}, 60);
    ASSERT_EQ(r.exit_code, 0) << r.output;
}

std::string base64_decode(const std::string &text) {
    std::istringstream in(text);
    Poco::Base64Decoder dec(in);
    return std::string(std::istreambuf_iterator<char>(dec), std::istreambuf_iterator<char>());
}

std::string js_const(const std::string &html, const std::string &name) {
    std::smatch m;
    const std::regex re("const " + name + " = \"([^\"]*)\";");
    return std::regex_search(html, m, re) ? m[1].str() : "<missing " + name + ">";
}

std::string encoded(const std::string &path) {
    std::string out;
    Poco::URI::encode(path, "?#[]@!$&'()*+,;=/%", out);
    return out;
}

// The viewer of a running host, as its URL file names it: the port, and the capability path the URL
// carries ("/<32 hex digits>"), which every /view request must start with.
struct ViewerUrl {
    int port = 0;
    std::string prefix;
};
ViewerUrl viewer_url(const HostProcess &host, const std::string &url_file) {
    std::string url;
    for (int i = 0; i < 200 && url.empty(); ++i) {
        if (std::filesystem::exists(url_file)) url = read_file(url_file);
        if (url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    std::smatch m;
    EXPECT_TRUE(std::regex_match(url, m, std::regex("http://localhost:([0-9]+)(/[0-9a-f]{32})"))) << url << "\n" << host.log();
    if (m.size() != 3) return {};
    return {std::stoi(m[1].str()), m[2].str()};
}

// One GET from a chosen local address (127.0.0.2 is loopback to the kernel but not to OpenHands' check).
HttpResponse get_from(const std::string &source_ip, int port, const std::string &target) {
    Poco::Net::StreamSocket socket(Poco::Net::SocketAddress::IPv4);
    socket.impl()->bind(Poco::Net::SocketAddress(source_ip, 0), false);
    socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)), Poco::Timespan(30, 0));
    socket.setReceiveTimeout(Poco::Timespan(30, 0));
    Poco::Net::SocketStream stream(socket);
    Poco::Net::HTTPRequest req("GET", target, Poco::Net::HTTPMessage::HTTP_1_1);
    req.setHost("localhost");
    req.set("Connection", "close");
    req.write(stream);
    stream.flush();
    Poco::Net::HTTPResponse resp;
    resp.read(stream);
    HttpResponse out;
    out.status = resp.getStatus();
    out.body = std::string(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
    out.headers["content-type"] = resp.getContentType();
    return out;
}

class FileViewer : public ::testing::Test {
  protected:
    void SetUp() override {
        HostOptions o;
        o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir_ / "oh-server-url";
        host_ = std::make_unique<HostProcess>(o);
        const ViewerUrl url = viewer_url(*host_, dir_ / "oh-server-url");
        port_ = url.port;
        cap_ = url.prefix;
        viewer_ = std::make_unique<Http>("127.0.0.1", port_);
    }
    TempDir dir_{"ahviewer"};
    std::unique_ptr<HostProcess> host_;
    int port_ = 0;
    std::string cap_;
    std::unique_ptr<Http> viewer_;
};

TEST_F(FileViewer, ServesAPdfAsTheViewerPageWithItsBytesInlined) {
    const std::string pdf = make_pdf("Hello from the viewer test");
    const std::string path = dir_ / "report.pdf";
    write_file(path, pdf);
    auto r = viewer_->get(cap_ + "/view?path=" + encoded(path));
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.headers["content-type"], "text/html; charset=utf-8");
    EXPECT_EQ(r.body.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
    EXPECT_NE(r.body.find("<title>File Viewer - report.pdf</title>"), std::string::npos);
    EXPECT_NE(r.body.find("pdf.js/3.11.174/pdf.min.js"), std::string::npos);
    EXPECT_EQ(js_const(r.body, "filePath"), path);
    EXPECT_EQ(js_const(r.body, "fileExtension"), ".pdf");
    EXPECT_EQ(js_const(r.body, "mimeType"), "application/pdf");
    EXPECT_EQ(base64_decode(js_const(r.body, "fileBase64")), pdf);
    EXPECT_EQ(r.body.substr(r.body.size() - 7), "</html>");
}

TEST_F(FileViewer, ServesAPngAndUpperCaseExtensions) {
    const std::string path = dir_ / "Chart.PNG";
    write_png(path);
    const std::string png = read_file(path);
    ASSERT_EQ(png.substr(1, 3), "PNG");
    auto r = viewer_->get(cap_ + "/view?path=" + encoded(path));
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(js_const(r.body, "fileExtension"), ".png");
    EXPECT_EQ(js_const(r.body, "mimeType"), "image/png");
    EXPECT_EQ(base64_decode(js_const(r.body, "fileBase64")), png);
    EXPECT_NE(r.body.find("img.src = `data:${mimeType};base64,${fileBase64}`;"), std::string::npos);
}

TEST_F(FileViewer, RefusesAsOpenHandsDoes) {
    write_file(dir_ / "notes.txt", "text");
    struct Case {
        std::string query;
        int status;
        std::string body;
    } cases[] = {
        {"relative/a.png", 400, "<h1>Error: Path must be absolute</h1><p>relative/a.png</p>"},
        {"", 400, "<h1>Error: Path must be absolute</h1><p></p>"},
        {dir_ / "missing.png", 404, "<h1>Error: File not found</h1><p>" + (dir_ / "missing.png") + "</p>"},
        {dir_.path(), 400, "<h1>Error: Path is a directory</h1><p>" + dir_.path() + "</p>"},
        {dir_ / "notes.txt", 500,
         "<h1>Error viewing file</h1><p>" + (dir_ / "notes.txt") +
             "</p><p>Unsupported file extension: .txt. Supported extensions are: .pdf, .png, .jpg, .jpeg, .gif</p>"},
        // Request text is escaped, never inserted as markup.
        {"<script>x</script>", 400, "<h1>Error: Path must be absolute</h1><p>&lt;script&gt;x&lt;/script&gt;</p>"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.query);
        auto r = viewer_->get(cap_ + "/view?path=" + encoded(c.query));
        EXPECT_EQ(r.status, c.status);
        EXPECT_EQ(r.body, c.body);
        EXPECT_EQ(r.headers["content-type"], "text/html; charset=utf-8");
    }
    auto missing = viewer_->get(cap_ + "/view");
    EXPECT_EQ(missing.status, 422);
    EXPECT_EQ(missing.json()["detail"][0]["loc"], nlohmann::json({"query", "path"}));
    auto root = viewer_->get("/");
    EXPECT_EQ(root.status, 200);
    EXPECT_EQ(root.body, R"({"status":"File viewer server is running"})");
    EXPECT_EQ(viewer_->get(cap_).body, root.body);
    EXPECT_EQ(viewer_->get("/elsewhere").status, 404);
    EXPECT_EQ(viewer_->get(cap_ + "/elsewhere").status, 404);
    EXPECT_EQ(viewer_->request("POST", cap_ + "/view?path=/x.png").status, 405);
}

TEST_F(FileViewer, AnswersOnlyLoopbackClientsNamedAsOpenHandsNamesThem) {
    const std::string path = dir_ / "p.png";
    write_png(path);
    auto denied = get_from("127.0.0.2", port_, cap_ + "/view?path=" + encoded(path));
    EXPECT_EQ(denied.status, 403);
    EXPECT_EQ(denied.body, "<h1>Access Denied</h1><p>This endpoint is only accessible from localhost</p>");
    auto allowed = get_from("127.0.0.1", port_, cap_ + "/view?path=" + encoded(path));
    EXPECT_EQ(allowed.status, 200);
}

// The URL in the file is what the agent uses (as OpenHands tells it: `{server_url}/view?path=...`); the
// session key works too; neither a plain /view nor a wrong capability does (security tests attack it).
TEST_F(FileViewer, AnswersTheUrlOfItsFileOrTheSessionKey) {
    HostOptions o;
    o.api_key = "viewer-key";
    o.env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = dir_ / "keyed-url";
    HostProcess keyed(o);
    const ViewerUrl url = viewer_url(keyed, dir_ / "keyed-url");
    const std::string path = dir_ / "k.png";
    write_png(path);
    Http viewer("127.0.0.1", url.port);
    EXPECT_EQ(viewer.get(url.prefix + "/view?path=" + encoded(path)).status, 200);
    EXPECT_EQ(viewer.get("/view?path=" + encoded(path), {{"X-Session-API-Key", "viewer-key"}}).status, 200);
    EXPECT_EQ(viewer.get("/view?path=" + encoded(path)).status, 403);
    EXPECT_EQ(viewer.get("/view?path=" + encoded(path), {{"X-Session-API-Key", "wrong"}}).status, 403);
    Http api("127.0.0.1", keyed.port());
    EXPECT_EQ(api.get("/list_files").status, 403);
}

// With an explicit PORT the viewer takes a port in [PORT+1, PORT+1024], as OpenHands does.
TEST(FileViewerPort, IsInTheRangeAboveTheApiPort) {
    int api_port = 0;
    {
        Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
        api_port = probe.address().port();
    }
    if (api_port > 64000) GTEST_SKIP() << "ephemeral port too high for a full range: " << api_port;
    TempDir dir("ahviewerport");
    const std::string url_file = dir / "url", port_file = dir / "port";
    std::filesystem::create_directories(dir / "home");
    // As the test's own user: a root test must not create users on the machine.
    const passwd *me = getpwuid(geteuid());
    ASSERT_NE(me, nullptr);
    std::vector<std::string> argv = {build_path("bin/actionhost"), std::to_string(api_port), "--host", "127.0.0.1",
                                     "--port-file", port_file, "--working-dir", dir.path(),
                                     "--username", me->pw_name, "--user-id", std::to_string(geteuid())};
    std::vector<std::string> env = {"HOME=" + (dir / "home"), "ACTIONHOST_FILE_VIEWER_URL_FILE=" + url_file,
                                    "PATH=/usr/local/bin:/usr/bin:/bin"};
    std::vector<char *> cargv, cenv;
    for (auto &s : argv) cargv.push_back(s.data());
    cargv.push_back(nullptr);
    for (auto &s : env) cenv.push_back(s.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string log = dir / "host.log";
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    std::string url;
    for (int i = 0; i < 800 && !std::filesystem::exists(port_file); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (std::filesystem::exists(url_file)) url = read_file(url_file);
    kill(pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) != pid; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    ASSERT_FALSE(url.empty()) << read_file(log);
    const int viewer = std::stoi(url.substr(url.rfind(':') + 1, 5));
    EXPECT_GE(viewer, api_port + 1) << url;
    EXPECT_LE(viewer, api_port + 1024) << url;
}

}  // namespace
