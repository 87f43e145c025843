"""An HTTPS git server for the egress proxy's tests, run in a test host's network namespace.

Serves the repositories under --repos over git's smart HTTP protocol (git http-backend as a CGI), each
request only with HTTP basic authentication as x-access-token:<--token>, /whoami, which answers
"authorized" or "anonymous" (never the credentials), and /echo-header, which does what a careless server
does: reflects the Authorization it got in a response header. Every request's path and Authorization header go to
--log, one JSON line each, so that a test sees what reached the server — and what did not.
"""
import argparse
import base64
import json
import os
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOG_LOCK = threading.Lock()


def read_body(handler):
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        body = b""
        for _ in range(1 << 20):
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                handler.rfile.readline()
                return body
            body += handler.rfile.read(size)
            handler.rfile.readline()
        raise ValueError("too many chunks")
    return handler.rfile.read(int(handler.headers.get("Content-Length", "0")))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def authorized(self):
        expected = "Basic " + base64.b64encode(("x-access-token:" + ARGS.token).encode()).decode()
        return self.headers.get("Authorization") == expected

    def note(self):
        with LOG_LOCK, open(ARGS.log, "a") as log:
            log.write(json.dumps({"path": self.path, "authorization": self.headers.get("Authorization"),
                                  "host": self.headers.get("Host")}) + "\n")

    def reply(self, status, text, extra=None):
        body = (text + "\n").encode()
        self.send_response(status)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        self.note()
        body = read_body(self)
        if self.path == "/whoami":
            return self.reply(200, "authorized" if self.authorized() else "anonymous")
        if self.path == "/echo-header":  # a careless server that reflects the credentials in a header
            return self.reply(200, "echoed", {"X-Echo": self.headers.get("Authorization", "")})
        if not self.authorized():
            return self.reply(401, "who are you?", {"WWW-Authenticate": 'Basic realm="git"'})
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=ARGS.repos, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path, QUERY_STRING=query,
                   REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(body)), REMOTE_USER="x-access-token", REMOTE_ADDR="198.51.100.1")
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = 200, {}
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers[name] = value.strip()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_HEAD = handle_any


def main():
    global ARGS
    p = argparse.ArgumentParser()
    for name in ("--address", "--cert", "--key", "--token", "--repos", "--log"):
        p.add_argument(name, required=True)
    p.add_argument("--port", type=int, default=443)
    ARGS = p.parse_args()
    server = ThreadingHTTPServer((ARGS.address, ARGS.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(ARGS.cert, ARGS.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
