"""Bounded retries and the mapping of SDK exceptions to `ModelError`, shared by HTTP providers.

We retry ourselves (the SDKs get `max_retries=0`) so the number of attempts and the backoff are
ours to bound and to shorten in tests, and so every failure leaves here as one typed, one-line
`ModelError` with the key scrubbed out of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from coder.models.base import ModelError, ModelErrorKind

T = TypeVar("T")

_DETAIL_CHARS = 300


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a transient failure (429, 5xx, lost connection) is retried."""

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
    if status >= 500:
        return "overloaded"
    return "bad_request"


def is_retryable(status: int) -> bool:
    return status == 429 or status >= 500


def one_line(text: str, secret: str = "", limit: int = _DETAIL_CHARS) -> str:
    """Collapse whitespace, cut to `limit` characters and remove `secret` wherever it appears."""
    flat = " ".join(text.split())
    if secret:
        flat = flat.replace(secret, "***")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


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


def status_error(status: int, body: object, endpoint: Endpoint, attempts: int) -> ModelError:
    kind = status_kind(status)
    detail = one_line(error_detail(body), endpoint.secret) or "no detail"
    where = f"{endpoint.label} (HTTP {status})"
    if kind == "auth":
        # The server's own words may quote part of the key, so they are left out.
        return ModelError(kind, f"{where} rejected the credentials; check {endpoint.key_env}")
    if kind == "bad_request":
        return ModelError(kind, f"{where} refused the request: {detail}")
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    if kind == "rate_limited":
        return ModelError(kind, f"{where} is rate limiting{tries}: {detail}")
    if kind == "timeout":
        return ModelError(kind, f"{where} timed out the request{tries}: {detail}")
    return ModelError(kind, f"{where} is unavailable or overloaded{tries}: {detail}")


def call_with_retries(
    send: Callable[[], T],
    *,
    policy: RetryPolicy,
    endpoint: Endpoint,
    sdk: SdkErrors,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run `send`, retrying transient failures within `policy`; raise only `ModelError`.

    A request timeout is not retried: the request already waited the whole timeout, and the
    loop is better told at once than after several more.
    """
    attempt = 0
    while True:
        try:
            return send()
        except sdk.timeout:
            raise ModelError(
                "timeout", f"{endpoint.label} sent no reply within {endpoint.timeout_s:g} s"
            ) from None
        except sdk.status as err:
            status = int(getattr(err, "status_code", 0))
            headers = _headers_of(err)
            if is_retryable(status) and attempt < policy.max_retries:
                sleep(policy.delay(attempt, retry_after_s(headers)))
                attempt += 1
                continue
            raise status_error(status, getattr(err, "body", None), endpoint, attempt + 1) from None
        except sdk.connection as err:
            if attempt < policy.max_retries:
                sleep(policy.delay(attempt, None))
                attempt += 1
                continue
            cause = one_line(str(err.__cause__ or err), endpoint.secret)
            raise ModelError(
                "connection", f"cannot reach {endpoint.label} after {attempt + 1} attempts: {cause}"
            ) from None


def _headers_of(err: Exception) -> Mapping[str, str] | None:
    response: Any = getattr(err, "response", None)
    return getattr(response, "headers", None)


def json_with_retries(
    send: Callable[[], Any], *, policy: RetryPolicy, endpoint: Endpoint, sdk: SdkErrors
) -> Mapping[str, Any]:
    """Send a `with_raw_response` request within `policy` and return its JSON object body.

    Providers read the raw body rather than the SDK's parsed object so that malformed replies
    (a local server's tool call as text, a missing field) reach their own parsers intact.
    """
    raw = call_with_retries(send, policy=policy, endpoint=endpoint, sdk=sdk)
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
