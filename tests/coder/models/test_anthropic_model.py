from __future__ import annotations

import logging
import socket
import time

import pytest
from fake_model_servers import (
    Reply,
    anthropic_error,
    anthropic_message,
    anthropic_tool_use,
    fake_anthropic,
)

from coder.models.anthropic_model import AnthropicModel, to_anthropic_messages
from coder.models.base import (
    Message,
    ModelError,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
)
from coder.models.transport import RetryPolicy

KEY = "sk-ant-test-SECRET-0123456789"
FAST = RetryPolicy(max_retries=2, backoff_s=0.01, max_backoff_s=0.05)
TOOLS = [
    ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {}}}),
    ToolSpec("finish_step", "Finish.", {"type": "object", "properties": {"summary": {}}}),
]
CACHE = {"type": "ephemeral"}


def _model(base_url: str, **kwargs: object) -> AnthropicModel:
    options: dict = {"api_key": KEY, "base_url": base_url, "retry": FAST, "timeout_s": 5.0}
    options.update(kwargs)
    return AnthropicModel("claude-test", **options)


def _ask(model: AnthropicModel, messages: list[Message] | None = None):
    return model.complete(
        system="You are careful.",
        messages=messages or [Message.user("fix add")],
        tools=TOOLS,
        max_tokens=512,
    )


def test_tool_call_round_trip() -> None:
    call = anthropic_tool_use("read_file", {"path": "calc.py"}, id="toolu_1")
    with fake_anthropic([anthropic_message(text="Reading.", tool_calls=[call])]) as server:
        reply = _ask(_model(server.base_url))
    assert reply.tool_calls == [ToolCall("toolu_1", "read_file", {"path": "calc.py"})]
    assert reply.text == "Reading."
    assert reply.stop_reason == "tool_use"
    assert reply.parse_errors == []
    body = server.requests[0].body
    assert body["model"] == "claude-test" and body["max_tokens"] == 512
    assert body["system"] == [{"type": "text", "text": "You are careful.", "cache_control": CACHE}]
    assert [t["name"] for t in body["tools"]] == ["read_file", "finish_step"]
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == CACHE
    assert body["tools"][0]["input_schema"] == TOOLS[0].input_schema
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "fix add", "cache_control": CACHE}]}
    ]
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_tool_results_are_paired_with_their_calls() -> None:
    history = [
        Message.user("fix add"),
        Message(
            "assistant",
            (
                TextPart("Two reads."),
                ToolCallPart("toolu_a", "read_file", {"path": "a.py"}),
                ToolCallPart("toolu_b", "read_file", {"path": "b.py"}),
            ),
        ),
        Message.user("(note from the harness)"),
        Message(
            "user",
            (
                ToolResultPart("toolu_b", "contents of b"),
                ToolResultPart("toolu_a", "no such file: a.py", is_error=True),
            ),
        ),
    ]
    with fake_anthropic([anthropic_message(text="done")]) as server:
        reply = _ask(_model(server.base_url), history)
    assert reply.text == "done" and reply.tool_calls == [] and reply.stop_reason == "end_turn"
    messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b.get("id") for b in messages[1]["content"]] == [None, "toolu_a", "toolu_b"]
    last = messages[2]["content"]
    assert [(b["type"], b.get("tool_use_id"), b.get("is_error")) for b in last] == [
        ("tool_result", "toolu_b", False),
        ("tool_result", "toolu_a", True),
        ("text", None, None),
    ]
    assert last[1]["content"] == "no such file: a.py"
    assert last[2]["text"] == "(note from the harness)" and last[2]["cache_control"] == CACHE


def test_empty_text_is_dropped_and_empty_messages_vanish() -> None:
    messages = [
        Message.user("task"),
        Message("assistant", (TextPart("  "), ToolCallPart("t1", "stop", {}))),
        Message("user", (TextPart(""),)),
        Message("user", (ToolResultPart("t1", "ok"),)),
    ]
    wire = to_anthropic_messages(messages, cache_last=False)
    assert wire == [
        {"role": "user", "content": [{"type": "text", "text": "task"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "stop", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": False}
            ],
        },
    ]


def test_overloaded_then_success_is_retried() -> None:
    replies = [anthropic_error(529, "overloaded_error", "Overloaded"), anthropic_message(text="ok")]
    with fake_anthropic(replies) as server:
        reply = _ask(_model(server.base_url))
    assert reply.text == "ok"
    assert len(server.requests) == 2


def test_overloaded_past_the_retry_budget_is_a_typed_error() -> None:
    replies = [anthropic_error(529, "overloaded_error", "Overloaded")] * 3
    with fake_anthropic(replies) as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert err.value.kind == "overloaded"
    assert "HTTP 529" in err.value.message and "after 3 attempts" in err.value.message
    assert len(server.requests) == 3


def test_rate_limit_honours_retry_after_then_gives_up() -> None:
    limited = anthropic_error(
        429, "rate_limit_error", "slow down", headers={"retry-after-ms": "20"}
    )
    with fake_anthropic([limited] * 3) as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert err.value.kind == "rate_limited" and "slow down" in err.value.message
    assert len(server.requests) == 3


def test_server_error_then_success_is_retried() -> None:
    replies = [anthropic_error(500, "api_error", "boom"), anthropic_message(text="ok")]
    with fake_anthropic(replies) as server:
        assert _ask(_model(server.base_url)).text == "ok"
    assert len(server.requests) == 2


def test_rejected_key_says_so_in_one_line_and_never_shows_the_key(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    with fake_anthropic(require_key="the-right-key") as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # the key was sent
    assert len(server.requests) == 1  # and not retried
    error = err.value
    assert error.kind == "auth"
    assert "ANTHROPIC_API_KEY" in error.message and "HTTP 401" in error.message
    assert "\n" not in str(error)
    captured = capsys.readouterr()
    everything = [str(error), repr(error), captured.out, captured.err, caplog.text]
    everything += [str(a) for a in error.args]
    assert caplog.records, "debug logging was captured, so the absence below means something"
    assert not any(KEY in text for text in everything)


def test_bad_request_is_not_retried_and_carries_the_server_reason() -> None:
    bad = anthropic_error(
        400, "invalid_request_error", "messages: text content blocks must be non-empty"
    )
    with fake_anthropic([bad]) as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert err.value.kind == "bad_request"
    assert "text content blocks must be non-empty" in err.value.message
    assert len(server.requests) == 1


def test_a_call_budget_shortens_the_client_timeout() -> None:
    with fake_anthropic([Reply(anthropic_message(text="late"), delay_s=5.0)]) as server:
        started = time.monotonic()
        with pytest.raises(ModelError) as err:
            _model(server.base_url, timeout_s=60.0).complete(
                system="s", messages=[Message.user("hi")], tools=[], timeout_s=0.4
            )
        elapsed = time.monotonic() - started
    assert err.value.kind == "timeout" and "within 0.4 s" in err.value.message
    assert elapsed < 4.0


def test_the_context_window_is_the_models_documented_one() -> None:
    window = AnthropicModel("claude-test", api_key="k").context_window()
    assert window.tokens == 200_000


def test_slow_server_times_out_with_a_short_client_timeout() -> None:
    with fake_anthropic([Reply(anthropic_message(text="late"), delay_s=3.0)]) as server:
        started = time.monotonic()
        with pytest.raises(ModelError) as err:
            _ask(_model(server.base_url, timeout_s=0.3))
        elapsed = time.monotonic() - started
    assert err.value.kind == "timeout" and "0.3 s" in err.value.message
    assert elapsed < 2.0
    assert len(server.requests) == 1


def test_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelError) as err:
        _ask(_model(f"http://127.0.0.1:{port}"))
    assert err.value.kind == "connection" and "after 3 attempts" in err.value.message


def test_a_body_that_is_not_json_is_a_typed_error() -> None:
    with (
        fake_anthropic([Reply("<html>proxy error</html>")]) as server,
        pytest.raises(ModelError) as err,
    ):
        _ask(_model(server.base_url))
    assert err.value.kind == "connection" and "not JSON" in err.value.message


def test_usage_and_cache_figures_are_carried_through() -> None:
    message = anthropic_message(
        text="ok", input_tokens=50, output_tokens=7, cache_read=1000, cache_write=200
    )
    with fake_anthropic([message]) as server:
        reply = _ask(_model(server.base_url))
    assert reply.usage == Usage(
        input_tokens=1250, output_tokens=7, cache_read_tokens=1000, cache_write_tokens=200
    )
    assert reply.latency_s > 0


def test_a_tool_input_that_is_not_an_object_is_a_parse_error() -> None:
    block = {"type": "tool_use", "id": "t1", "name": "read_file", "input": "calc.py"}
    with fake_anthropic([anthropic_message(tool_calls=[block])]) as server:
        reply = _ask(_model(server.base_url))
    assert reply.tool_calls == []
    assert reply.parse_errors == [
        "tool call 'read_file' had an input that is not a JSON object: \"calc.py\""
    ]


def test_message_caching_can_be_turned_off() -> None:
    with fake_anthropic([anthropic_message(text="ok")]) as server:
        _ask(_model(server.base_url, cache_messages=False))
    assert server.requests[0].body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "fix add"}]}
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"type": "message", "role": "assistant", "content": 5, "usage": {}},
        {"type": "message", "role": "assistant", "content": [], "usage": "x"},
    ],
)
def test_a_reply_of_the_wrong_shape_is_a_typed_error(body: dict) -> None:
    with fake_anthropic([Reply(body)]) as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert err.value.kind == "connection" and "unexpected shape" in err.value.message
