// The web view's script (served as /ui/app.js): one terminal at a time over /ui/terminal, the file
// tree from /ui/files, the newest image a plugin saved (a browser screenshot, say) from /ui/screenshot.
"use strict";
const term = new Terminal({cursorBlink: true, scrollback: 5000});
const fit = new FitAddon.FitAddon();
term.loadAddon(fit);
term.open(document.getElementById("term"));
const status = document.getElementById("status");
const picker = document.getElementById("terminals");
let socket = null;
const encoder = new TextEncoder();

function control(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect(name) {
  if (socket) socket.close();
  term.reset();
  fit.fit();
  const url = new URL("/ui/terminal", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("name", name);
  url.searchParams.set("rows", term.rows);
  url.searchParams.set("cols", term.cols);
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  socket = ws;
  ws.onopen = () => { status.textContent = "terminal " + name; control({type: "resize", rows: term.rows, cols: term.cols}); term.focus(); };
  ws.onmessage = (e) => {
    if (typeof e.data !== "string") return term.write(new Uint8Array(e.data));
    const m = JSON.parse(e.data);
    if (m.type === "exit") status.textContent = "terminal " + name + " ended (" + m.code + ")";
    if (m.type === "error") status.textContent = m.message;
  };
  ws.onclose = () => { if (socket === ws) status.textContent += " — disconnected"; };
  window.ahTerminal = name;
}

term.onData((d) => { if (socket && socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(d)); });
term.onResize((s) => control({type: "resize", rows: s.rows, cols: s.cols}));
window.addEventListener("resize", () => fit.fit());

async function refreshTerminals(select) {
  const list = await (await fetch("/ui/terminals")).json();
  const current = select || picker.value;
  picker.replaceChildren(...list.map((t) => new Option(t.name + " (" + t.clients + " watching)", t.name)));
  if (current && !list.some((t) => t.name === current)) picker.append(new Option(current, current));
  if (current) picker.value = current;
  return list;
}
picker.onchange = () => connect(picker.value);
document.getElementById("new").onclick = async () => {
  const name = "web-" + Math.random().toString(16).slice(2, 8);
  await refreshTerminals(name);
  connect(name);
};

// The directory the file tree shows ("" the workspace), listed again on every refresh so files the
// agent or the terminal makes appear without a reload.
let filesDir = "";
async function showFiles(dir) {
  filesDir = dir || "";
  const r = await fetch("/ui/files?path=" + encodeURIComponent(dir || ""));
  if (!r.ok) return;
  const listing = await r.json();
  document.getElementById("cwd").textContent = listing.path;
  const box = document.getElementById("files");
  const links = [];
  if (dir) {
    const up = document.createElement("a");
    up.textContent = "../";
    up.href = "#";
    up.onclick = (e) => { e.preventDefault(); showFiles(listing.path.replace(/\/[^/]*\/?$/, "") || "/"); };
    links.push(up);
  }
  for (const entry of listing.entries) {
    const a = document.createElement("a");
    a.textContent = entry;
    const full = listing.path.replace(/\/$/, "") + "/" + entry.replace(/\/$/, "");
    if (entry.endsWith("/")) {
      a.href = "#";
      a.onclick = (e) => { e.preventDefault(); showFiles(full); };
    } else {
      a.href = "/ui/download?path=" + encodeURIComponent(full);
      a.download = entry;
    }
    links.push(a);
  }
  box.replaceChildren(...links);
  window.ahFilesShown = listing.path;
}

async function refreshScreenshot() {
  const img = document.getElementById("shot");
  const r = await fetch("/ui/screenshot", {cache: "no-store"});
  const heading = document.getElementById("shot-title");
  if (r.status !== 200) { img.hidden = true; heading.hidden = true; return; }
  heading.textContent = r.headers.get("X-Image-Title") || "Latest image";
  heading.hidden = false;
  const old = img.src;
  img.src = URL.createObjectURL(await r.blob());
  img.hidden = false;
  if (old.startsWith("blob:")) URL.revokeObjectURL(old);
}

(async () => {
  const list = await refreshTerminals();
  connect(list.length ? list[0].name : "web");
  await refreshTerminals(window.ahTerminal);
  showFiles("");
  refreshScreenshot();
  setInterval(() => { refreshTerminals(); refreshScreenshot(); showFiles(filesDir); }, 5000);
})();
