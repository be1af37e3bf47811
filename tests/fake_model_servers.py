"""Local HTTP servers that speak the Anthropic Messages and OpenAI chat completions wire formats.

Real sockets on 127.0.0.1 (port 0), a thread per request, replies handed out in the order they
were queued, and every request kept for assertions. The real SDK clients are pointed at
`server.base_url`. Reusable outside this package, e.g. for an end-to-end record/replay run:

    with fake_anthropic([anthropic_message(tool_calls=[anthropic_tool_use("stop", {...})])]) as s:
        os.environ["ANTHROPIC_BASE_URL"] = s.base_url
        ...
        assert s.requests[0].body["messages"] ...
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One HTTP answer: a JSON body (or raw text), a status, optional delay and headers."""

    body: Any
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: Any


Responder = Callable[[ReceivedRequest], Reply]


class FakeServer:
    """Answers POSTs to `path` with queued replies, then with `respond` (if given), else a 400
    saying nothing was queued (a 400 is not retried, so a test short of replies fails fast).

    `routes` answers other requests, keyed "GET /props" or "POST /api/show"; every request to
    them is kept in `side_requests`. Anything else is a 404."""

    def __init__(
        self,
        path: str,
        replies: Iterable[Reply | Mapping[str, Any]] = (),
        *,
        api_root: str = "",
        respond: Responder | None = None,
        require_key: str | None = None,
        routes: Mapping[str, Reply | Mapping[str, Any]] | None = None,
    ) -> None:
        self.path = path
        self.api_root = api_root
        self.respond = respond
        self.require_key = require_key
        self.routes = {
            k: r if isinstance(r, Reply) else Reply(dict(r)) for k, r in (routes or {}).items()
        }
        self.side_requests: list[ReceivedRequest] = []
        self.requests: list[ReceivedRequest] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.push(*replies)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}{self.api_root}"

    def push(self, *replies: Reply | Mapping[str, Any]) -> None:
        with self._lock:
            self._queue.extend(r if isinstance(r, Reply) else Reply(dict(r)) for r in replies)

    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next_reply(self, request: ReceivedRequest) -> Reply:
        if self.require_key is not None and self.require_key not in _credentials(request.headers):
            return Reply(
                {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}},
                status=401,
            )
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.respond is not None:
            return self.respond(request)
        return Reply(
            {"error": {"type": "invalid_request_error", "message": "fake server: nothing queued"}},
            status=400,
        )

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._answer("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._answer("POST")

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                request = ReceivedRequest(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                route = f"{method} {self.path.split('?')[0]}"
                if route in server.routes:
                    server.side_requests.append(request)
                    reply = server.routes[route]
                elif route != f"POST {server.path}":
                    reply = Reply({"error": {"message": f"no route {self.path}"}}, status=404)
                else:
                    server.requests.append(request)
                    reply = server._next_reply(request)
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


def _credentials(headers: Mapping[str, str]) -> str:
    return f"{headers.get('x-api-key', '')} {headers.get('authorization', '')}"


def fake_anthropic(replies: Iterable[Reply | Mapping[str, Any]] = (), **kwargs: Any) -> FakeServer:
    """A Messages API server; point `anthropic.Anthropic(base_url=...)` at `.base_url`."""
    return FakeServer("/v1/messages", replies, **kwargs)


def fake_openai(replies: Iterable[Reply | Mapping[str, Any]] = (), **kwargs: Any) -> FakeServer:
    """A chat completions server; `.base_url` ends in /v1 as OpenAI-compatible servers do."""
    return FakeServer("/v1/chat/completions", replies, api_root="/v1", **kwargs)


_ids = itertools.count(1)


def anthropic_tool_use(name: str, tool_input: Mapping[str, Any], id: str | None = None) -> dict:
    return {
        "type": "tool_use",
        "id": id or f"toolu_{next(_ids):04d}",
        "name": name,
        "input": dict(tool_input),
    }


def anthropic_message(
    *,
    text: str = "",
    tool_calls: Iterable[Mapping[str, Any]] = (),
    stop_reason: str | None = None,
    input_tokens: int = 100,
    output_tokens: int = 20,
    cache_read: int = 0,
    cache_write: int = 0,
    model: str = "claude-test",
) -> dict[str, Any]:
    """A Messages API response body; `tool_calls` are `anthropic_tool_use(...)` blocks."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.extend(dict(c) for c in tool_calls)
    return {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason or ("tool_use" if tool_calls else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_read_input_tokens": cache_read,
            "cache_creation_input_tokens": cache_write,
        },
    }


def anthropic_error(status: int, error_type: str, message: str, **reply: Any) -> Reply:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return Reply(body, status=status, **reply)


def openai_tool_call(name: str, arguments: Any, id: str | None = None) -> dict[str, Any]:
    """A `tool_calls` entry; `arguments` is sent exactly as given (string, object, ...)."""
    return {
        "id": id or f"call_{next(_ids):04d}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def openai_completion(
    *,
    content: str | None = None,
    tool_calls: Iterable[Mapping[str, Any]] | None = None,
    finish_reason: str | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    cached_tokens: int = 0,
    model: str = "local-test",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    calls = list(tool_calls or [])
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{next(_ids):04d}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def openai_error(status: int, message: str, **reply: Any) -> Reply:
    return Reply(
        {"error": {"message": message, "type": "invalid_request_error"}}, status=status, **reply
    )


# A server that behaves the way llama-cpp-python 0.3.36's does (`python -m llama_cpp.server
# --chat_format chatml-function-calling`), as observed on the wire: it drops the tools unless
# `tool_choice` is given, refuses a message whose `content` is null with an HTTP 500 carrying
# FastAPI's validation text, mirrors a single tool call in the legacy `function_call` field
# (with an empty name), cuts a reply at `max_tokens` (and at what is left of its context
# window), and refuses a prompt longer than its window with a 400 naming it. Tokens are
# counted as 4 characters.


@dataclass
class LlamaCppLike:
    """The responder; `plan` holds what the model "wants" to say each turn:
    `{"tool": name, "arguments": {...}}` or `{"text": "..."}`. A tool turn requested without
    `tool_choice` comes back as the text a model writes when it cannot see the tools."""

    plan: list[dict[str, Any]]
    n_ctx: int = 8192
    model: str = "gemma-3-270m"
    turn: int = 0
    mirror_whole: bool = False

    def __call__(self, request: ReceivedRequest) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        messages = body.get("messages") or []
        for index, message in enumerate(messages):
            if isinstance(message, dict) and message.get("content", "") is None:
                return Reply(llama_cpp_validation_error(index, message), status=500)
        prompt = _tokens(json.dumps(messages)) + _tokens(json.dumps(body.get("tools") or []))
        if prompt >= self.n_ctx:
            return Reply(_context_exceeded(self.n_ctx, prompt, body.get("max_tokens")), status=400)
        limit = min(int(body.get("max_tokens") or self.n_ctx), self.n_ctx - prompt)
        if self.turn >= len(self.plan):
            return Reply({"error": {"message": "llama-like server: plan exhausted"}}, status=400)
        wanted = self.plan[self.turn]
        self.turn += 1
        sees_tools = bool(body.get("tools")) and body.get("tool_choice") is not None
        if "tool" in wanted and sees_tools:
            return Reply(self._tool_call(wanted, prompt))
        text = wanted.get("text") or f"I would call {wanted.get('tool')} if I had tools."
        return Reply(self._text(text, prompt, limit))

    def _tool_call(self, wanted: dict[str, Any], prompt: int) -> dict[str, Any]:
        arguments = json.dumps(wanted.get("arguments") or {})
        call = {"name": wanted["tool"], "arguments": arguments}
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call__0_{wanted['tool']}_{self.turn}",
                    "type": "function",
                    "function": call,
                }
            ],
            # 0.3.36 mirrors the call with an empty name; a fixed server would mirror it whole.
            "function_call": {**call, "name": call["name"] if self.mirror_whole else ""},
        }
        return self._completion(message, "tool_calls", prompt, _tokens(arguments))

    def _text(self, text: str, prompt: int, limit: int) -> dict[str, Any]:
        finish = "stop"
        if _tokens(text) > limit:
            text, finish = text[: limit * 4], "length"
        message = {"role": "assistant", "content": text}
        return self._completion(message, finish, prompt, _tokens(text))

    def _completion(
        self, message: dict[str, Any], finish: str, prompt: int, completion: int
    ) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{self.turn}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }


def fake_llama_cpp(
    plan: list[dict[str, Any]], *, n_ctx: int = 8192, mirror_whole: bool = False, **kwargs: Any
) -> FakeServer:
    """A llama-cpp-python-like server at `.base_url` (ending in /v1); `.respond` is the
    `LlamaCppLike` with its plan. It reports no context window (/v1/models has only ids)."""
    responder = LlamaCppLike(plan, n_ctx=n_ctx, mirror_whole=mirror_whole)
    models = {
        "object": "list",
        "data": [{"id": responder.model, "object": "model", "owned_by": "me", "permissions": []}],
    }
    routes = {"GET /v1/models": models, **kwargs.pop("routes", {})}
    return FakeServer(
        "/v1/chat/completions", api_root="/v1", respond=responder, routes=routes, **kwargs
    )


def _tokens(text: str) -> int:
    return -(-len(text) // 4)


def llama_cpp_validation_error(index: int, message: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's text for a message no member of the request's message union accepts, as
    llama-cpp-python 0.3.36 sends it (HTTP 500) for an assistant turn with a null content."""
    role = message.get("role")
    entries = []
    for kind in ("System", "User", "Assistant", "Tool", "Function"):
        where = f"('body', 'messages', {index}, 'ChatCompletionRequest{kind}Message'"
        if kind == "Assistant":
            entries.append(
                f"{{'type': 'string_type', 'loc': {where}, 'content'), "
                "'msg': 'Input should be a valid string', 'input': None}"
            )
            continue
        expected = kind.lower()
        entries.append(
            f"{{'type': 'literal_error', 'loc': {where}, 'role'), 'msg': \"Input should be "
            f"'{expected}'\", 'input': '{role}', 'ctx': {{'expected': \"'{expected}'\"}}}}"
        )
        if kind in ("Tool", "Function"):
            field = "tool_call_id" if kind == "Tool" else "name"
            entries.append(
                f"{{'type': 'missing', 'loc': {where}, '{field}'), 'msg': 'Field required', "
                f"'input': {message!r}}}"
            )
    text = "".join(f"  {e}\n" for e in entries)
    return {
        "error": {
            "message": f'{len(entries)} validation errors:\n{text}\n  File "llama_cpp/server/'
            'app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions',
            "type": "internal_server_error",
            "param": None,
            "code": None,
        }
    }


def _context_exceeded(n_ctx: int, prompt: int, max_tokens: object) -> dict[str, Any]:
    completion = int(max_tokens) if isinstance(max_tokens, int) else 0
    return {
        "error": {
            "message": f"This model's maximum context length is {n_ctx} tokens. However, you "
            f"requested {prompt + completion} tokens ({prompt} in the messages, {completion} in "
            "the completion). Please reduce the length of the messages or completion.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
