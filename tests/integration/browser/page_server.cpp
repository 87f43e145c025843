#include "page_server.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/URI.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace actionhost::testing {

struct PageServer::State {
    std::map<std::string, Page> pages;
    mutable std::mutex mu;
    std::condition_variable cv;
    bool stopping = false;
    std::map<std::string, std::string> queries;
};

std::string tiny_pdf() {
    return "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
           "3 0 obj<</Type/Page/MediaBox[0 0 200 200]/Parent 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
}

namespace {

// A MiniWoB++ task page in miniature: the page API browsergym-miniwob drives (core.startEpisodeReal,
// core.getUtterance, core.endEpisode and the WOB_* globals), scoring a choice from a list.
const char *kMiniwobChooseList = R"HTML(<!DOCTYPE html><html><head><title>Choose List Task</title><script>
var WOB_REWARD_GLOBAL = 0, WOB_RAW_REWARD_GLOBAL = 0, WOB_REWARD_REASON = null, WOB_DONE_GLOBAL = false,
    WOB_EPISODE_ID = 0, WOB_TASK_READY = false;
var core = {
  EPISODE_MAX_TIME: 10000, target: null,
  startEpisodeReal: function () {
    WOB_EPISODE_ID++; WOB_DONE_GLOBAL = false; WOB_RAW_REWARD_GLOBAL = 0; WOB_TASK_READY = false;
    core.target = 'Banana';
    document.getElementById('query').textContent = 'Select ' + core.target + ' from the list and click Submit.';
    setTimeout(function () { WOB_TASK_READY = true; }, 100);
  },
  getUtterance: function () { return {utterance: document.getElementById('query').textContent, fields: {target: core.target}}; },
  endEpisode: function (reward) { WOB_RAW_REWARD_GLOBAL = reward; WOB_REWARD_GLOBAL = reward; WOB_DONE_GLOBAL = true; }
};
</script></head><body><div id="query"></div>
<select id="fruit" aria-label="Fruit"><option>Apple</option><option>Banana</option><option>Cherry</option></select>
<button id="submit" onclick="core.endEpisode(document.getElementById('fruit').value === core.target ? 1 : -1)">Submit</button>
</body></html>)HTML";

// One button that never stops moving and one that settles: Playwright's "stable" check. Each on a line
// of its own: the moving one slides sideways, and on the calm one's line it would pass over it and take
// a click aimed there between the hit test and the click (seen once under load).
const char *kMoving = R"HTML(<!DOCTYPE html><html><head><title>Moving</title><style>
@keyframes slide { from { transform: translateX(0); } to { transform: translateX(200px); } }
#restless { animation: slide 0.4s linear infinite alternate; }
</style></head><body>
<div><button id="restless" onclick="document.getElementById('out').textContent='restless clicked'">restless</button></div>
<div><button id="calm" onclick="document.getElementById('out').textContent='calm clicked'">calm</button></div>
<p id="out">nothing clicked</p>
</body></html>)HTML";

const char *kIndex = R"HTML(<!DOCTYPE html><html><head><title>Test Page</title></head><body>
<h1>Hello World</h1>
<p>Some <b>bold</b> text and <a href="/form.html">the form</a>.</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="secret alt text">
<ul><li>One</li><li>Two</li></ul>
</body></html>)HTML";

const char *kForm = R"HTML(<!DOCTYPE html><html><head><title>Form</title></head><body>
<form action="/submit" method="get">
<label for="name">Name</label><input id="name" name="name" type="text">
<label for="color">Color</label><select id="color" name="color"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select>
<label><input type="checkbox" name="agree" value="yes">Agree</label>
<button type="submit">Send</button>
</form>
<p id="para">Just a paragraph</p>
</body></html>)HTML";

const char *kInteract = R"HTML(<!DOCTYPE html><html><head><title>Interact</title></head><body style="margin:0">
<button id="hov" onmouseover="this.textContent='hovered'">hover me</button>
<input id="field" type="text" aria-label="Field" onfocus="document.getElementById('status').textContent='focused'">
<input id="keys" type="text" aria-label="Keys">
<button id="clicker" onclick="this.textContent='clicked ' + (++window.clicks)">click me</button>
<p id="status">idle</p>
<p id="scrolled">top</p>
<div style="height:3000px">tall</div>
<p>bottom text</p>
<script>
window.clicks = 0;
window.addEventListener('scroll', () => { document.getElementById('scrolled').textContent = 'scrolled ' + Math.round(window.scrollY); });
document.getElementById('keys').addEventListener('keydown', e => { if (e.key === 'Enter') document.getElementById('status').textContent = 'enter pressed with ' + e.target.value; });
</script>
</body></html>)HTML";

const char *kUpload = R"HTML(<!DOCTYPE html><html><head><title>Upload</title></head><body>
<input id="file" type="file" aria-label="Choose file" onchange="document.getElementById('chosen').textContent = 'chosen ' + this.files[0].name + ' ' + this.files[0].size">
<p id="chosen">nothing chosen</p>
</body></html>)HTML";

const char *kDownload = R"HTML(<!DOCTYPE html><html><head><title>Download</title></head><body>
<a id="pdf" href="/doc.pdf">get the pdf</a>
</body></html>)HTML";

const char *kDrag = R"HTML(<!DOCTYPE html><html><head><title>Drag</title></head><body style="margin:0">
<div id="src" role="button" aria-label="drag source" style="width:80px;height:40px;background:#ccc" onmousedown="window.dragging=true">drag source</div>
<div id="dst" role="region" aria-label="drop target" style="width:120px;height:60px;margin-top:100px;background:#eee" onmouseup="if (window.dragging) document.getElementById('out').textContent='dropped on target'">drop target</div>
<button id="dbl" ondblclick="document.getElementById('out').textContent='double clicked'">double me</button>
<p id="out">nothing yet</p>
</body></html>)HTML";

const char *kSlow = R"HTML(<!DOCTYPE html><html><head><title>Slow</title></head><body>
<p>Waiting forever</p><img src="/hang" alt="never">
</body></html>)HTML";

class Handler : public Poco::Net::HTTPRequestHandler {
  public:
    explicit Handler(std::shared_ptr<PageServer::State> s) : s_(std::move(s)) {}
    void handleRequest(Poco::Net::HTTPServerRequest &req, Poco::Net::HTTPServerResponse &resp) override {
        Poco::URI uri(req.getURI());
        const std::string path = uri.getPath();
        {
            std::lock_guard<std::mutex> lock(s_->mu);
            s_->queries[path] = uri.getRawQuery();
        }
        if (path == "/hang") {
            // Never answers while the test runs (bounded: 60 s, or until the server stops).
            std::unique_lock<std::mutex> lock(s_->mu);
            s_->cv.wait_for(lock, std::chrono::seconds(60), [&] { return s_->stopping; });
            return;
        }
        if (path == "/submit") {
            resp.setContentType("text/html; charset=utf-8");
            std::string body = "<html><head><title>Submitted</title></head><body><p id=\"q\">query " + uri.getRawQuery() + "</p></body></html>";
            resp.sendBuffer(body.data(), body.size());
            return;
        }
        auto it = s_->pages.find(path);
        if (it == s_->pages.end()) {
            resp.setStatus(Poco::Net::HTTPResponse::HTTP_NOT_FOUND);
            resp.setContentType("text/html; charset=utf-8");
            std::string body = "<html><head><title>404</title></head><body><h1>Not Found page</h1></body></html>";
            resp.sendBuffer(body.data(), body.size());
            return;
        }
        const Page &p = it->second;
        resp.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(p.status));
        resp.setContentType(p.content_type);
        for (const auto &[k, v] : p.headers) resp.set(k, v);
        resp.sendBuffer(p.body.data(), p.body.size());
    }

  private:
    std::shared_ptr<PageServer::State> s_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
  public:
    explicit Factory(std::shared_ptr<PageServer::State> s) : s_(std::move(s)) {}
    Poco::Net::HTTPRequestHandler *createRequestHandler(const Poco::Net::HTTPServerRequest &) override { return new Handler(s_); }

  private:
    std::shared_ptr<PageServer::State> s_;
};

}  // namespace

PageServer::PageServer() : state_(std::make_shared<State>()) {
    state_->pages["/index.html"] = Page{200, "text/html; charset=utf-8", kIndex, {}};
    state_->pages["/form.html"] = Page{200, "text/html; charset=utf-8", kForm, {}};
    state_->pages["/interact.html"] = Page{200, "text/html; charset=utf-8", kInteract, {}};
    state_->pages["/upload.html"] = Page{200, "text/html; charset=utf-8", kUpload, {}};
    state_->pages["/download.html"] = Page{200, "text/html; charset=utf-8", kDownload, {}};
    state_->pages["/drag.html"] = Page{200, "text/html; charset=utf-8", kDrag, {}};
    state_->pages["/slow.html"] = Page{200, "text/html; charset=utf-8", kSlow, {}};
    state_->pages["/miniwob/choose-list.html"] = Page{200, "text/html; charset=utf-8", kMiniwobChooseList, {}};
    state_->pages["/moving.html"] = Page{200, "text/html; charset=utf-8", kMoving, {}};
    state_->pages["/doc.pdf"] = Page{200, "application/pdf", tiny_pdf(), {}};
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    port_ = socket.address().port();
    auto *params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(16);
    params->setKeepAlive(false);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(state_), socket, params);
    server_->start();
}

PageServer::~PageServer() {
    {
        std::lock_guard<std::mutex> lock(state_->mu);
        state_->stopping = true;
    }
    state_->cv.notify_all();
    server_->stopAll(true);
}

std::string PageServer::last_query(const std::string &path) const {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->queries.find(path);
    return it == state_->queries.end() ? "" : it->second;
}

}  // namespace actionhost::testing
