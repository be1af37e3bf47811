"""A local HTTP server that speaks the GitHub issue-comment endpoints the bot uses.

Real socket on 127.0.0.1, one thread; it records every request so tests can check what was
sent (and that the token only ever travelled in the Authorization header).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

LIST_OR_CREATE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
UPDATE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class Failure:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] = field(default_factory=lambda: {"message": "nope"})


@dataclass
class FakeGitHub:
    repository: str = "acme/widgets"
    token: str = "ghs_fakeTOKEN_1234567890"
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    fail: Failure | None = None
    url: str = ""
    link_base: str = ""
    """Where Link headers point; the server's own URL unless a test says otherwise."""
    poster: dict[str, str] = field(
        default_factory=lambda: {"login": "github-actions[bot]", "type": "Bot"}
    )
    """Who the token belongs to: the author of comments posted through the API."""
    _next_id: int = 1000

    def seed(self, number: int, bodies: list[str], user: dict[str, str] | None = None) -> None:
        for body in bodies:
            self._add(number, body, user)

    def _add(self, number: int, body: str, user: dict[str, str] | None = None) -> dict[str, Any]:
        self._next_id += 1
        comment = {
            "id": self._next_id,
            "body": body,
            "html_url": f"https://github.example/{self.repository}/pull/{number}#c{self._next_id}",
            "user": dict(user or self.poster),
        }
        self.comments.setdefault(number, []).append(comment)
        return comment

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: Any):
        parts = urlsplit(raw_path)
        query = parse_qs(parts.query)
        self.requests.append(Recorded(method, parts.path, query, headers, body))
        if self.fail is not None:
            return self.fail.status, self.fail.headers, self.fail.body
        if headers.get("authorization") != f"Bearer {self.token}":
            return 401, {}, {"message": "Bad credentials"}
        if m := LIST_OR_CREATE.match(parts.path):
            repo, number = m.group(1), int(m.group(2))
            if repo != self.repository:
                return 404, {}, {"message": "Not Found"}
            if method == "GET":
                return self._page(number, query, parts.path)
            if method == "POST":
                return 201, {}, self._add(number, body["body"])
        if (m := UPDATE.match(parts.path)) and method == "PATCH":
            for comment in (c for cs in self.comments.values() for c in cs):
                if comment["id"] == int(m.group(2)):
                    if comment["user"]["login"] != self.poster["login"]:
                        return 403, {}, {"message": "Resource not accessible by integration"}
                    comment["body"] = body["body"]
                    return 200, {}, comment
        return 404, {}, {"message": "Not Found"}

    def _page(self, number: int, query: dict[str, list[str]], path: str):
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        items = self.comments.get(number, [])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        base = self.link_base or self.url
        if page * per_page < len(items):
            headers["Link"] = (
                f'<{base}{path}?per_page={per_page}&page={page + 1}>; rel="next", '
                f'<{base}{path}?per_page={per_page}&page=1>; rel="first"'
            )
        return 200, headers, chunk


def serve(fake: FakeGitHub) -> tuple[ThreadingHTTPServer, threading.Thread]:
    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, payload = fake.handle(self.command, self.path, headers, body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in extra.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _any

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return server, thread
