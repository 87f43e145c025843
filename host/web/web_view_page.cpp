#include "web/web_view_page.hpp"

namespace actionhost::host {

namespace {

// Markup only: the Content-Security-Policy allows no inline script, so the page's own code is a file
// (host/web/web_view_app.js, served as /ui/assets/app.js beside xterm.js).
const char *kPage = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>actionhost — web view</title>
<link rel="stylesheet" href="/ui/assets/xterm.css">
<style>
body{margin:0;font:14px system-ui,sans-serif;display:grid;grid-template-columns:1fr 320px;grid-template-rows:auto 1fr;height:100vh}
header{grid-column:1/3;background:#223;color:#fff;padding:6px 10px;display:flex;gap:10px;align-items:center}
header select,header button{font:inherit}
#term{background:#000;min-height:0;overflow:hidden}
aside{overflow:auto;border-left:1px solid #ccc;padding:6px}
aside h2{font-size:13px;margin:8px 0 4px}
#files a{display:block;text-decoration:none;white-space:nowrap}
#shot{max-width:100%;border:1px solid #ccc}
#status{margin-left:auto;opacity:.8}
</style></head><body>
<header><b>actionhost</b>
<label>terminal <select id="terminals"></select></label>
<button id="new">new terminal</button>
<span id="status">connecting…</span></header>
<div id="term"></div>
<aside><h2>Files <span id="cwd"></span></h2><div id="files"></div>
<h2 id="shot-title" hidden></h2><img id="shot" alt="no image yet" hidden></aside>
<script src="/ui/assets/xterm.js"></script>
<script src="/ui/assets/addon-fit.js"></script>
<script src="/ui/assets/app.js"></script>
</body></html>
)HTML";

}  // namespace

const std::string &web_view_page() {
    static const std::string page = kPage;
    return page;
}

std::string web_view_login_page(const std::string &error) {
    std::string escaped;
    for (char c : error) escaped += c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
    return R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>actionhost — sign in</title>
<style>body{font:15px system-ui,sans-serif;max-width:28em;margin:4em auto}input{font:inherit;width:100%;margin:.5em 0}</style>
</head><body><h1>actionhost web view</h1>
)HTML" + (escaped.empty() ? std::string() : "<p><b>" + escaped + "</b></p>") +
           R"HTML(<form method="post" action="/ui/login">
<label>Session key (SESSION_API_KEY)<input type="password" name="key" id="key" autofocus autocomplete="off"></label>
<input type="submit" value="Open">
</form><script src="/ui/assets/login.js"></script></body></html>
)HTML";
}

}  // namespace actionhost::host
