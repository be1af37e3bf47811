"""Bounded retries and the mapping of SDK exceptions to `ModelError`, shared by HTTP providers.

We retry ourselves (the SDKs get `max_retries=0`) so the number of attempts and the backoff are
ours to bound and to shorten in tests, and so every failure leaves here as one typed, one-line
`ModelError` with the key scrubbed out of it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from coder.models.base import ContextOverflow, ModelError, ModelErrorKind

T = TypeVar("T")

_DETAIL_CHARS = 300
_REASON_CHARS = 1500
"""A server's own reason is kept this long: validation errors name their cause late."""
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504, 529})
"""What can succeed on a retry from any server. A plain 500 from a local server is the server
failing on this very request (llama-cpp-python answers a request it cannot parse with one), so
only hosted APIs, whose 500 is an internal hiccup, add it (`Endpoint.retry_statuses`)."""
HOSTED_RETRY_STATUSES = TRANSIENT_STATUSES | {500}


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a transient failure (429, 502/503/504/529, a lost
    connection) is retried."""

    max_retries: int = 3
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None and retry_after_s > 0:
            return min(retry_after_s, self.max_backoff_s)
        return min(self.backoff_s * 2.0**attempt, self.max_backoff_s)


@dataclass(frozen=True)
class Endpoint:
    """What error messages may say about a call's destination; `secret` is scrubbed from them."""

    label: str
    key_env: str
    secret: str
    timeout_s: float
    """The longest one request may wait; a call's own budget can only shorten it."""
    not_found_hint: str = ""
    """Added to a 404: the likely fix for a base URL that names no API."""
    retry_statuses: frozenset[int] = TRANSIENT_STATUSES
    """HTTP statuses worth another attempt from this server."""


@dataclass(frozen=True)
class SdkErrors:
    """The exception classes of one SDK; the timeout class must be checked before connection."""

    status: type[Exception]
    timeout: type[Exception]
    connection: type[Exception]


def status_kind(status: int) -> ModelErrorKind:
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "rate_limited"
    if status == 408:
        return "timeout"
    if status in TRANSIENT_STATUSES:
        return "overloaded"
    if status >= 500:
        return "server_error"
    return "bad_request"


def is_retryable(status: int, statuses: frozenset[int] = TRANSIENT_STATUSES) -> bool:
    return status in statuses


def one_line(text: str, secret: str = "", limit: int = _DETAIL_CHARS) -> str:
    """Collapse whitespace, cut to `limit` characters and remove `secret` wherever it appears."""
    flat = " ".join(text.split())
    if secret:
        flat = flat.replace(secret, "***")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_PYDANTIC_ERROR = re.compile(r"""'loc': \(([^)]*)\), 'msg': (?:'([^']*)'|"([^"]*)")""")


def validation_causes(text: str) -> str:
    """The causes in a pydantic or FastAPI validation error's text, as `where: what` pairs.

    Such errors repeat every input they rejected before the next cause, so a cut taken from the
    front keeps the noise and loses the reasons."""
    seen: dict[str, None] = {}
    for loc, quoted, double_quoted in _PYDANTIC_ERROR.findall(text):
        msg = quoted or double_quoted
        where = ".".join(p.strip(" '\"") for p in loc.split(",") if p.strip(" '\""))
        seen.setdefault(f"{where}: {msg}" if where else msg, None)
    return "; ".join(seen)


def error_detail(body: object) -> str:
    """The human part of an error body in either SDK's shape ({"error": {"message"}} or bare)."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    if isinstance(body, str):
        return body
    return ""


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            continue
    return None


def server_reason(body: object, secret: str = "") -> str:
    """The server's own reason on one line, long enough to show the cause."""
    text = error_detail(body)
    if causes := validation_causes(text):
        head = text.strip().splitlines()[0].rstrip(": ") if text.strip() else "invalid request"
        text = f"{head}: {causes}"
    return one_line(text, secret, _REASON_CHARS)


_WINDOW = re.compile(r"maximum context length is (\d+) tokens|exceed context window of (\d+)")
_PROMPT = re.compile(
    r"\((\d+) in the messages"  # vLLM, llama-cpp-python
    r"|your messages resulted in (\d+) tokens"  # OpenAI
    r"|Requested tokens \((\d+)\) exceed"  # llama-cpp-python's own words
)


def context_overflow(body: object) -> tuple[int, int | None] | None:
    """(the server's window, the prompt's size in its tokens if said) when a refusal says the
    request is too big for the window."""
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    if isinstance(inner, Mapping) and isinstance(inner.get("n_ctx"), int):  # llama.cpp server
        prompt = inner.get("n_prompt_tokens")
        return int(inner["n_ctx"]), int(prompt) if isinstance(prompt, int) else None
    text = error_detail(body)
    window = _WINDOW.search(text)
    if window is None:
        return None
    prompt = _PROMPT.search(text)
    tokens = next((int(g) for g in prompt.groups() if g), None) if prompt else None
    return int(window.group(1) or window.group(2)), tokens


def status_error(status: int, body: object, endpoint: Endpoint, attempts: int) -> ModelError:
    kind = status_kind(status)
    detail = server_reason(body, endpoint.secret) or "no detail"
    where = f"{endpoint.label} (HTTP {status})"
    if kind == "auth":
        # The server's own words may quote part of the key, so they are left out.
        return ModelError(kind, f"{where} rejected the credentials; check {endpoint.key_env}")
    if kind == "bad_request":
        hint = f"; {endpoint.not_found_hint}" if status == 404 and endpoint.not_found_hint else ""
        message = f"{where} refused the request: {detail}{hint}"
        if overflow := context_overflow(body):
            return ContextOverflow(message, window=overflow[0], prompt_tokens=overflow[1])
        return ModelError(kind, message)
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    if kind == "rate_limited":
        return ModelError(kind, f"{where} is rate limiting{tries}: {detail}")
    if kind == "timeout":
        return ModelError(kind, f"{where} timed out the request{tries}: {detail}")
    if kind == "server_error":
        return ModelError(kind, f"{where} failed on the request{tries}: {detail}")
    return ModelError(kind, f"{where} is unavailable or overloaded{tries}: {detail}")


def call_with_retries(
    send: Callable[[float], T],
    *,
    policy: RetryPolicy,
    endpoint: Endpoint,
    sdk: SdkErrors,
    sleep: Callable[[float], None] = time.sleep,
    budget_s: float | None = None,
) -> T:
    """Run `send(timeout_s)`, retrying transient failures within `policy`; raise only
    `ModelError`.

    `budget_s` bounds the whole call, waits between attempts included: each attempt may wait
    only what is left of it (never more than `endpoint.timeout_s`), and a retry that could not
    start before it runs out is not made. A request timeout is not retried: the request already
    waited the whole timeout, and the loop is better told at once than after several more.
    """
    deadline = None if budget_s is None else time.monotonic() + max(0.0, budget_s)

    def can_wait(delay: float) -> bool:
        return deadline is None or time.monotonic() + delay < deadline

    attempt = 0
    while True:
        timeout = endpoint.timeout_s
        if deadline is not None:
            timeout = max(0.001, min(timeout, deadline - time.monotonic()))
        try:
            return send(timeout)
        except sdk.timeout:
            raise ModelError(
                "timeout", f"{endpoint.label} sent no reply within {timeout:.3g} s"
            ) from None
        except sdk.status as err:
            status = int(getattr(err, "status_code", 0))
            delay = policy.delay(attempt, retry_after_s(_headers_of(err)))
            retryable = is_retryable(status, endpoint.retry_statuses)
            if retryable and attempt < policy.max_retries and can_wait(delay):
                sleep(delay)
                attempt += 1
                continue
            raise status_error(status, getattr(err, "body", None), endpoint, attempt + 1) from None
        except sdk.connection as err:
            delay = policy.delay(attempt, None)
            if attempt < policy.max_retries and can_wait(delay):
                sleep(delay)
                attempt += 1
                continue
            cause = one_line(str(err.__cause__ or err), endpoint.secret)
            tries = f" after {attempt + 1} attempts" if attempt else ""
            raise ModelError(
                "connection", f"cannot reach {endpoint.label}{tries}: {cause}"
            ) from None


def _headers_of(err: Exception) -> Mapping[str, str] | None:
    response: Any = getattr(err, "response", None)
    return getattr(response, "headers", None)


def json_with_retries(
    send: Callable[[float], Any],
    *,
    policy: RetryPolicy,
    endpoint: Endpoint,
    sdk: SdkErrors,
    budget_s: float | None = None,
) -> Mapping[str, Any]:
    """Send a `with_raw_response` request within `policy` and return its JSON object body.

    Providers read the raw body rather than the SDK's parsed object so that malformed replies
    (a local server's tool call as text, a missing field) reach their own parsers intact.
    """
    raw = call_with_retries(send, policy=policy, endpoint=endpoint, sdk=sdk, budget_s=budget_s)
    try:
        body = raw.http_response.json()
    except ValueError:
        raise ModelError(
            "connection", f"{endpoint.label} answered with a body that is not JSON"
        ) from None
    if not isinstance(body, Mapping):
        raise ModelError("connection", f"{endpoint.label} answered with a non-object")
    return body


def read_reply(parse: Callable[[], T], endpoint: Endpoint) -> T:
    """Run a provider's reply parser; a body of the wrong shape is a typed error, not a crash."""
    try:
        return parse()
    except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
        raise ModelError(
            "connection",
            f"{endpoint.label} sent a reply of an unexpected shape ({type(exc).__name__})",
        ) from None


def public_url(url: str) -> str:
    """A base URL fit for messages: any `user:password@` part removed."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))
