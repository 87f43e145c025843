"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.utils.http_session`:
HttpSession, the HTTP session of ActionExecutionClient. Its `headers` go with every request. OpenHands
sends over httpx; this stand-in over the standard library (urllib), returning a small response with
`status_code`, `text` and `json()`."""

import json as _json
import urllib.error
import urllib.request


class _Response:
    def __init__(self, status_code, body):
        self.status_code = status_code
        self.text = body.decode('utf-8', 'replace')

    def json(self):
        return _json.loads(self.text)


class HttpSession:
    def __init__(self):
        self._is_closed = False
        self.headers = {}

    def request(self, method, url, json=None, timeout=None, headers=None, **_):
        all_headers = {**self.headers, **(headers or {})}
        data = None
        if json is not None:
            data = _json.dumps(json).encode()
            all_headers['Content-Type'] = 'application/json'
        req = urllib.request.Request(url, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return _Response(r.status, r.read())
        except urllib.error.HTTPError as e:
            return _Response(e.code, e.read())

    def close(self):
        self._is_closed = True
