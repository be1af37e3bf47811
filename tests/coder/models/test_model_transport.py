from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import pytest
from fake_model_servers import llama_cpp_validation_error

from coder.models.base import ContextOverflow, ModelError
from coder.models.transport import (
    HOSTED_RETRY_STATUSES,
    Endpoint,
    RetryPolicy,
    SdkErrors,
    call_with_retries,
    context_overflow,
    error_detail,
    one_line,
    retry_after_s,
    server_reason,
    status_error,
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
    timeouts: list[float] = field(default_factory=list)

    def send(self, timeout: float) -> str:
        self.calls += 1
        self.timeouts.append(timeout)
        if self.failures:
            raise self.failures.pop(0)
        return "ok"

    def run(
        self, policy: RetryPolicy, endpoint: Endpoint = ENDPOINT, budget_s: float | None = None
    ) -> str:
        def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)
            if budget_s is not None:  # the budget is wall-clock time: let it pass
                time.sleep(seconds)

        return call_with_retries(
            self.send, policy=policy, endpoint=endpoint, sdk=SDK, sleep=sleep, budget_s=budget_s
        )


POLICY = RetryPolicy(max_retries=3, backoff_s=0.5, max_backoff_s=1.5)


@pytest.mark.parametrize(
    "status, kind",
    [
        (401, "auth"),
        (403, "auth"),
        (429, "rate_limited"),
        (408, "timeout"),
        (500, "server_error"),
        (501, "server_error"),
        (502, "overloaded"),
        (503, "overloaded"),
        (504, "overloaded"),
        (529, "overloaded"),
        (400, "bad_request"),
        (404, "bad_request"),
        (422, "bad_request"),
    ],
)
def test_status_kind(status: int, kind: str) -> None:
    assert status_kind(status) == kind


def test_backoff_doubles_up_to_the_cap() -> None:
    script = Script([StatusError(529), StatusError(503), StatusError(502)])
    assert script.run(POLICY) == "ok"
    assert script.sleeps == [0.5, 1.0, 1.5]
    assert script.timeouts == [2.0] * 4  # without a budget, every attempt gets the endpoint's


def test_a_plain_500_is_not_retried_from_a_local_server_but_is_from_a_hosted_api() -> None:
    body = {"error": {"message": "Input should be a valid string"}}
    local = Script([StatusError(500, body)])
    with pytest.raises(ModelError) as err:
        local.run(POLICY)
    assert local.calls == 1 and local.sleeps == []
    assert err.value.kind == "server_error"
    assert err.value.message == (
        "Test API (HTTP 500) failed on the request: Input should be a valid string"
    )
    hosted = Script([StatusError(500)])
    assert hosted.run(POLICY, replace(ENDPOINT, retry_statuses=HOSTED_RETRY_STATUSES)) == "ok"
    assert hosted.calls == 2


def test_a_budget_bounds_every_attempt_and_the_waits_between_them() -> None:
    script = Script([StatusError(503)] * 5)
    with pytest.raises(ModelError) as err:
        script.run(RetryPolicy(max_retries=5, backoff_s=0.2, max_backoff_s=8.0), budget_s=0.5)
    # The 0.2 s wait fits the 0.5 s budget; the next 0.4 s one would pass it: no third attempt.
    assert script.calls == 2 and script.sleeps == [0.2]
    assert script.timeouts[0] <= 0.5 and script.timeouts[1] <= 0.3
    assert err.value.kind == "overloaded"
    short = Script([TimedOut()])
    with pytest.raises(ModelError) as err:
        short.run(POLICY, budget_s=0.25)
    assert short.timeouts[0] <= 0.25 and "within 0.25 s" in err.value.message


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
    gone = Script([ConnectionFailed("connection reset by peer")] * 4)
    with pytest.raises(ModelError) as err:
        gone.run(POLICY)
    assert gone.calls == 4 and "after 4 attempts: connection reset by peer" in err.value.message


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


# What llama-cpp-python 0.3.36 answers to an assistant turn with "content": null (its
# tool_calls made long, as a real turn's are): FastAPI's validation text, one entry per member of
# the message union it tried.
VALIDATION_500 = llama_cpp_validation_error(
    2,
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"function": {"name": "write_file", "arguments": "x" * 900}}],
    },
)


def test_a_validation_error_keeps_its_cause_however_long_the_body() -> None:
    raw = error_detail(VALIDATION_500)
    assert len(raw) > 1500 and raw.index("Input should be a valid string") > 300
    reason = server_reason(VALIDATION_500)
    cause = "body.messages.2.ChatCompletionRequestAssistantMessage.content: Input should be a valid string"
    assert reason.startswith("7 validation errors: body.messages.2.")
    assert cause in reason and len(reason) < 1000
    error = status_error(500, VALIDATION_500, ENDPOINT, 1)
    assert cause in error.message and "\n" not in error.message


@pytest.mark.parametrize(
    "body, window, prompt",
    [
        (  # llama-cpp-python
            {
                "error": {
                    "message": "This model's maximum context length is 2048 tokens. However, "
                    "you requested 3146 tokens (2634 in the messages, 512 in the completion). "
                    "Please reduce the length of the messages or completion.",
                    "code": "context_length_exceeded",
                }
            },
            2048,
            2634,
        ),
        (  # vLLM
            {
                "object": "error",
                "message": "This model's maximum context length is 4096 tokens. However, you "
                "requested 5000 tokens (904 in the messages, 4096 in the completion).",
            },
            4096,
            904,
        ),
        (  # llama.cpp's llama-server
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 9000,
                    "n_ctx": 8192,
                }
            },
            8192,
            9000,
        ),
        (
            {"error": {"message": "Requested tokens (3000) exceed context window of 2048"}},
            2048,
            3000,
        ),
        (  # OpenAI
            {
                "error": {
                    "message": "This model's maximum context length is 128000 tokens. However, "
                    "your messages resulted in 130017 tokens. Please reduce the length.",
                    "code": "context_length_exceeded",
                }
            },
            128000,
            130017,
        ),
    ],
    ids=["llama-cpp-python", "vllm", "llama-server", "llama-cpp-raw", "openai"],
)
def test_a_context_overflow_names_the_window(body: dict, window: int, prompt: int) -> None:
    assert context_overflow(body) == (window, prompt)
    error = status_error(400, body, ENDPOINT, 1)
    assert isinstance(error, ContextOverflow) and error.kind == "bad_request"
    assert (error.window, error.prompt_tokens) == (window, prompt)


def test_other_refusals_are_not_overflows() -> None:
    assert context_overflow({"error": {"message": "model not found"}}) is None
    assert not isinstance(
        status_error(400, {"error": {"message": "no"}}, ENDPOINT, 1), ContextOverflow
    )


def test_a_404_carries_the_endpoint_hint() -> None:
    hinted = replace(ENDPOINT, not_found_hint="did you mean http://h:1/v1?")
    error = status_error(404, {"detail": "Not Found"}, hinted, 1)
    assert error.message.endswith("; did you mean http://h:1/v1?")
    assert "did you mean" not in status_error(400, None, hinted, 1).message
