from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from coder.models.base import ModelError
from coder.models.transport import (
    Endpoint,
    RetryPolicy,
    SdkErrors,
    call_with_retries,
    error_detail,
    one_line,
    retry_after_s,
    status_kind,
)


class StatusError(Exception):
    def __init__(self, status_code: int, body: object = None, headers: dict | None = None) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code
        self.body = body
        self.response = type("R", (), {"headers": headers or {}})()


class ConnectionFailed(Exception):
    pass


class TimedOut(ConnectionFailed):
    pass


SDK = SdkErrors(status=StatusError, timeout=TimedOut, connection=ConnectionFailed)
ENDPOINT = Endpoint(label="Test API", key_env="TEST_KEY", secret="s3cr3t-key", timeout_s=2.0)


@dataclass
class Script:
    """A `send` that fails with the given exceptions in order, then returns "ok"."""

    failures: list[Exception]
    calls: int = 0
    sleeps: list[float] = field(default_factory=list)

    def send(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "ok"

    def run(self, policy: RetryPolicy) -> str:
        return call_with_retries(
            self.send, policy=policy, endpoint=ENDPOINT, sdk=SDK, sleep=self.sleeps.append
        )


POLICY = RetryPolicy(max_retries=3, backoff_s=0.5, max_backoff_s=1.5)


@pytest.mark.parametrize(
    "status, kind",
    [
        (401, "auth"),
        (403, "auth"),
        (429, "rate_limited"),
        (408, "timeout"),
        (500, "overloaded"),
        (529, "overloaded"),
        (400, "bad_request"),
        (404, "bad_request"),
        (422, "bad_request"),
    ],
)
def test_status_kind(status: int, kind: str) -> None:
    assert status_kind(status) == kind


def test_backoff_doubles_up_to_the_cap() -> None:
    script = Script([StatusError(529), StatusError(503), StatusError(500)])
    assert script.run(POLICY) == "ok"
    assert script.sleeps == [0.5, 1.0, 1.5]


def test_retry_after_header_wins_within_the_cap() -> None:
    script = Script(
        [
            StatusError(429, headers={"retry-after-ms": "250"}),
            StatusError(429, headers={"retry-after": "60"}),
        ]
    )
    assert script.run(POLICY) == "ok"
    assert script.sleeps == [0.25, 1.5]


def test_retries_are_bounded() -> None:
    script = Script([StatusError(529, {"error": {"message": "Overloaded"}})] * 5)
    with pytest.raises(ModelError) as err:
        script.run(POLICY)
    assert script.calls == 4
    assert err.value.kind == "overloaded"
    assert err.value.message == (
        "Test API (HTTP 529) is unavailable or overloaded after 4 attempts: Overloaded"
    )


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_not_retried(status: int) -> None:
    script = Script([StatusError(status)])
    with pytest.raises(ModelError):
        script.run(POLICY)
    assert script.calls == 1 and script.sleeps == []


def test_timeouts_are_not_retried_and_connection_errors_are() -> None:
    timed_out = Script([TimedOut()])
    with pytest.raises(ModelError) as err:
        timed_out.run(POLICY)
    assert err.value.kind == "timeout" and timed_out.calls == 1
    assert err.value.message == "Test API sent no reply within 2 s"
    flaky = Script([ConnectionFailed(), ConnectionFailed()])
    assert flaky.run(POLICY) == "ok" and flaky.calls == 3


def test_the_secret_never_reaches_a_message() -> None:
    body = {"error": {"message": "key s3cr3t-key is\nnot valid for model x"}}
    for status in (400, 401, 500):
        with pytest.raises(ModelError) as err:
            Script([StatusError(status, body)]).run(RetryPolicy(max_retries=0))
        assert "s3cr3t-key" not in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ModelError) as err:
        Script([ConnectionFailed("proxy said s3cr3t-key")] * 4).run(POLICY)
    assert "s3cr3t-key" not in str(err.value) and "***" in str(err.value)


def test_helpers() -> None:
    assert one_line("a\n  b\tc", "b") == "a *** c"
    assert one_line("x" * 500).endswith("…") and len(one_line("x" * 500)) == 300
    assert error_detail({"error": {"message": "m"}}) == "m"
    assert error_detail({"message": "m"}) == "m"
    assert error_detail("plain") == "plain" and error_detail(None) == ""
    assert retry_after_s({"retry-after": "2"}) == 2.0
    assert retry_after_s({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_s(None) is None


def test_userinfo_never_reaches_messages() -> None:
    from coder.models.transport import public_url

    assert public_url("https://user:pa55@llm.local:8000/v1") == "https://llm.local:8000/v1"
    assert public_url("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434/v1"
