from __future__ import annotations

import json
import logging
import time

import pytest
from fake_model_servers import (
    Reply,
    fake_llama_cpp,
    fake_openai,
    llama_cpp_validation_error,
    openai_completion,
    openai_error,
    openai_tool_call,
)

from coder.models.base import (
    ContextOverflow,
    Message,
    ModelError,
    ModelReply,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
)
from coder.models.openai_model import NO_KEY, OpenAIModel, to_openai_messages
from coder.models.transport import RetryPolicy

KEY = "sk-test-SECRET-abcdefghijklmnop"
FAST = RetryPolicy(max_retries=2, backoff_s=0.01, max_backoff_s=0.05)
TOOLS = [
    ToolSpec(
        "read_file",
        "Read a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        "edit_file",
        "Replace text.",
        {
            "type": "object",
            "properties": {"path": {}, "old_text": {}, "new_text": {}},
            "required": ["path", "old_text", "new_text"],
        },
    ),
    ToolSpec("list_files", "List files.", {"type": "object", "properties": {"glob": {}}}),
]
EDIT_FORM = '<tool_call>{"name": "edit_file", "arguments": {"path": "...", "old_text": "...", "new_text": "..."}}</tool_call>'


def _model(base_url: str, **kwargs: object) -> OpenAIModel:
    options: dict = {"api_key": KEY, "base_url": base_url, "retry": FAST, "timeout_s": 5.0}
    options.update(kwargs)
    return OpenAIModel("local-test", **options)


def _ask(model: OpenAIModel, messages: list[Message] | None = None) -> ModelReply:
    return model.complete(
        system="Be brief.",
        messages=messages or [Message.user("fix add")],
        tools=TOOLS,
        max_tokens=256,
    )


def _reply_to(completion: dict) -> ModelReply:
    with fake_openai([completion]) as server:
        return _ask(_model(server.base_url))


def test_tool_call_round_trip() -> None:
    call = openai_tool_call("read_file", json.dumps({"path": "calc.py"}), id="call_abc")
    with fake_openai([openai_completion(tool_calls=[call])]) as server:
        reply = _ask(_model(server.base_url))
    assert reply.tool_calls == [ToolCall("call_abc", "read_file", {"path": "calc.py"})]
    assert reply.stop_reason == "tool_use" and reply.parse_errors == []
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = request.body
    assert body["model"] == "local-test" and body["max_tokens"] == 256
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "fix add"},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": TOOLS[0].input_schema,
        },
    }


def test_tool_results_are_paired_with_their_calls() -> None:
    history = [
        Message.user("fix add"),
        Message(
            "assistant",
            (
                TextPart("Reading two files."),
                ToolCallPart("call_a", "read_file", {"path": "a.py"}),
                ToolCallPart("call_b", "read_file", {"path": "b.py"}),
            ),
        ),
        Message(
            "user",
            (
                ToolResultPart("call_a", "no such file: a.py", is_error=True),
                ToolResultPart("call_b", "def add(a, b): ..."),
                TextPart("Budget: 3 turns left."),
            ),
        ),
        Message.user("Remember the tests."),
    ]
    with fake_openai([openai_completion(content="done")]) as server:
        reply = _ask(_model(server.base_url), history)
    assert reply.text == "done" and reply.stop_reason == "end_turn"
    messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "user"]
    assistant = messages[2]
    assert assistant["content"] == "Reading two files."
    assert [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in assistant["tool_calls"]
    ] == [
        ("call_a", "read_file", {"path": "a.py"}),
        ("call_b", "read_file", {"path": "b.py"}),
    ]
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": "call_a",
        "content": "ERROR: no such file: a.py",
    }
    assert messages[4] == {
        "role": "tool",
        "tool_call_id": "call_b",
        "content": "def add(a, b): ...",
    }
    assert messages[5] == {
        "role": "user",
        "content": "Budget: 3 turns left.\n\nRemember the tests.",
    }


def test_assistant_with_only_calls_has_empty_string_content() -> None:
    wire = to_openai_messages("", [Message("assistant", (ToolCallPart("c1", "list_files", {}),))])
    assert wire == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "list_files", "arguments": "{}"},
                }
            ],
        }
    ]


# Against a server that behaves like llama-cpp-python 0.3.36 (see fake_model_servers).


def test_tools_are_offered_with_tool_choice_auto_so_a_local_server_sees_them() -> None:
    plan = [{"tool": "read_file", "arguments": {"path": "calc.py"}}]
    with fake_llama_cpp(plan) as server:
        reply = _ask(_model(server.base_url))
    assert [(c.name, c.input) for c in reply.tool_calls] == [("read_file", {"path": "calc.py"})]
    assert server.requests[0].body["tool_choice"] == "auto"


def test_no_tool_choice_without_tools() -> None:
    with fake_openai([openai_completion(content="hi")]) as server:
        _model(server.base_url).complete(system="", messages=[Message.user("hi")], tools=[])
    assert "tool_choice" not in server.requests[0].body and "tools" not in server.requests[0].body


def test_the_turn_after_a_tool_call_is_accepted_by_a_server_that_refuses_null_content() -> None:
    plan = [
        {"tool": "read_file", "arguments": {"path": "calc.py"}},
        {"tool": "list_files", "arguments": {}},
    ]
    with fake_llama_cpp(plan) as server:
        model = _model(server.base_url)
        first = _ask(model)
        history = [
            Message.user("fix add"),
            Message(
                "assistant", tuple(ToolCallPart(c.id, c.name, c.input) for c in first.tool_calls)
            ),
            Message("user", (ToolResultPart(first.tool_calls[0].id, "def add(a, b): ..."),)),
        ]
        second = _ask(model, history)
    assert [c.name for c in second.tool_calls] == ["list_files"]
    sent = server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert all(isinstance(m["content"], str) for m in sent)


def test_a_server_failing_on_the_request_is_not_retried_and_its_reason_is_kept() -> None:
    history = [Message.user("x")]
    with fake_llama_cpp([{"text": "unused"}]) as server:
        model = _model(server.base_url)
        # What older coder sent: a tool-call turn with a null content.
        server.push(
            Reply(
                llama_cpp_validation_error(2, {"role": "assistant", "content": None}),
                status=500,
            )
        )
        with pytest.raises(ModelError) as err:
            _ask(model, history)
    assert len(server.requests) == 1
    assert err.value.kind == "server_error"
    assert (
        "messages.2.ChatCompletionRequestAssistantMessage.content: Input should be a valid string"
        in err.value.message
    )


@pytest.mark.parametrize("mirror_whole", [False, True], ids=["blank-name", "whole"])
def test_a_call_mirrored_in_function_call_runs_once(mirror_whole: bool) -> None:
    plan = [{"tool": "edit_file", "arguments": {"path": "a.py", "old_text": "-", "new_text": "+"}}]
    with fake_llama_cpp(plan, mirror_whole=mirror_whole) as server:
        reply = _ask(_model(server.base_url))
    assert len(reply.tool_calls) == 1 and reply.parse_errors == []
    assert reply.tool_calls[0].input == {"path": "a.py", "old_text": "-", "new_text": "+"}


def test_legacy_function_call_alone_is_still_read() -> None:
    completion = openai_completion(content=None)
    completion["choices"][0]["message"]["function_call"] = {
        "name": "read_file",
        "arguments": '{"path": "a.py"}',
    }
    reply = _reply_to(completion)
    assert [(c.name, c.input) for c in reply.tool_calls] == [("read_file", {"path": "a.py"})]


def test_a_reply_cut_at_max_tokens_says_so_with_its_length() -> None:
    with fake_llama_cpp([{"text": "Let me think about this. " * 200}]) as server:
        reply = _ask(_model(server.base_url))  # max_tokens=256
    assert server.requests[0].body["max_tokens"] == 256
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens == 256
    assert reply.tool_calls == []


def test_a_prompt_past_the_window_is_a_context_overflow_naming_it() -> None:
    with fake_llama_cpp([{"text": "unused"}], n_ctx=64) as server:
        with pytest.raises(ContextOverflow) as err:
            _ask(_model(server.base_url), [Message.user("x" * 400)])
    assert err.value.window == 64 and err.value.kind == "bad_request"
    assert "maximum context length is 64 tokens" in err.value.message


def test_a_base_url_without_v1_gets_a_hint_on_404() -> None:
    with fake_openai([openai_completion(content="ok")]) as server:
        root = server.base_url.removesuffix("/v1")
        with pytest.raises(ModelError) as err:
            _ask(_model(root))
    assert err.value.kind == "bad_request" and "HTTP 404" in err.value.message
    assert err.value.message.endswith(
        f"did you mean {root}/v1? (OpenAI-compatible servers serve the API under /v1)"
    )
    with fake_openai([openai_error(404, "model 'x' not found")]) as server:
        with pytest.raises(ModelError) as err:
            _ask(_model(server.base_url))
    assert "did you mean" not in err.value.message


def test_the_call_waits_no_longer_than_its_budget() -> None:
    with fake_openai([Reply(openai_completion(content="late"), delay_s=5.0)]) as server:
        model = _model(server.base_url, timeout_s=30.0)
        started = time.monotonic()
        with pytest.raises(ModelError) as err:
            model.complete(system="", messages=[Message.user("x")], tools=TOOLS, timeout_s=0.5)
    assert err.value.kind == "timeout" and time.monotonic() - started < 4.0
    assert "within 0.5 s" in err.value.message


# Malformed tool calls from small local models, through the real server and SDK.


def test_arguments_given_as_an_object_are_repaired() -> None:
    reply = _reply_to(
        openai_completion(tool_calls=[openai_tool_call("read_file", {"path": "a.py"}, id="c1")])
    )
    assert reply.tool_calls == [ToolCall("c1", "read_file", {"path": "a.py"})]
    assert reply.parse_errors == []


@pytest.mark.parametrize(
    "arguments",
    [
        "{'path': 'a.py'}",
        '{"path": "a.py",}',
        '```json\n{"path": "a.py"}\n```',
        json.dumps(json.dumps({"path": "a.py"})),
    ],
    ids=["single-quotes", "trailing-comma", "fenced", "double-encoded"],
)
def test_malformed_argument_strings_are_repaired(arguments: str) -> None:
    reply = _reply_to(
        openai_completion(tool_calls=[openai_tool_call("read_file", arguments, id="c1")])
    )
    assert reply.tool_calls == [ToolCall("c1", "read_file", {"path": "a.py"})]
    assert reply.parse_errors == [] and reply.stop_reason == "tool_use"


def test_missing_arguments_key_is_repaired_when_the_tool_needs_none() -> None:
    raw = {"id": "c1", "type": "function", "function": {"name": "list_files"}}
    reply = _reply_to(openai_completion(tool_calls=[raw]))
    assert reply.tool_calls == [ToolCall("c1", "list_files", {})]


def test_missing_arguments_key_is_reported_when_the_tool_needs_some() -> None:
    raw = {"id": "c1", "type": "function", "function": {"name": "edit_file"}}
    reply = _reply_to(openai_completion(tool_calls=[raw]))
    assert reply.tool_calls == []
    assert len(reply.parse_errors) == 1
    assert "needs path, old_text, new_text" in reply.parse_errors[0]
    assert EDIT_FORM in reply.parse_errors[0]


def test_unrepairable_arguments_are_reported_with_the_exact_form() -> None:
    bad = openai_tool_call(
        "edit_file", '{"path": "calc.py", "old_text": "a - b", "new_text": ', id="c1"
    )
    good = openai_tool_call("read_file", '{"path": "calc.py"}', id="c2")
    reply = _reply_to(openai_completion(tool_calls=[bad, good]))
    assert reply.tool_calls == [ToolCall("c2", "read_file", {"path": "calc.py"})]
    assert len(reply.parse_errors) == 1
    assert reply.parse_errors[0].startswith("tool call 'edit_file': not valid JSON")
    assert EDIT_FORM in reply.parse_errors[0]


def test_tool_call_written_in_tags_is_repaired_with_a_fresh_id() -> None:
    content = 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'
    reply = _reply_to(openai_completion(content=content, finish_reason="stop"))
    assert reply.tool_calls == [ToolCall("call_local_1", "read_file", {"path": "a.py"})]
    assert reply.text == "Let me look."
    assert reply.stop_reason == "tool_use"


def test_tool_call_in_a_fenced_block_is_repaired() -> None:
    content = '```json\n{"name": "edit_file", "arguments": {"path": "a.py", "old_text": "-", "new_text": "+",}}\n```'
    reply = _reply_to(openai_completion(content=content))
    assert reply.tool_calls == [
        ToolCall("call_local_1", "edit_file", {"path": "a.py", "old_text": "-", "new_text": "+"})
    ]


def test_broken_tagged_call_is_reported() -> None:
    content = (
        "<tool_call>{'name': 'edit_file', 'arguments': {'path': 'a.py', 'old_text': </tool_call>"
    )
    reply = _reply_to(openai_completion(content=content))
    assert reply.tool_calls == [] and reply.stop_reason == "end_turn"
    assert len(reply.parse_errors) == 1 and EDIT_FORM in reply.parse_errors[0]


def test_ids_for_repaired_calls_stay_unique_across_turns() -> None:
    content = '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>'
    with fake_openai([openai_completion(content=content)] * 2) as server:
        model = _model(server.base_url)
        ids = [_ask(model).tool_calls[0].id, _ask(model).tool_calls[0].id]
    assert ids == ["call_local_1", "call_local_2"]


def test_plain_text_reply_has_no_calls_and_no_errors() -> None:
    reply = _reply_to(openai_completion(content="I think add() subtracts."))
    assert reply.text == "I think add() subtracts."
    assert reply.tool_calls == [] and reply.parse_errors == [] and reply.stop_reason == "end_turn"


# Transport: errors, retries, timeouts, usage.


def test_usage_and_cached_tokens_are_carried_through() -> None:
    reply = _reply_to(
        openai_completion(content="ok", prompt_tokens=900, completion_tokens=12, cached_tokens=800)
    )
    assert reply.usage == Usage(input_tokens=900, output_tokens=12, cache_read_tokens=800)
    assert reply.latency_s > 0


def test_overloaded_then_success_is_retried() -> None:
    replies = [openai_error(503, "loading model"), openai_completion(content="ok")]
    with fake_openai(replies) as server:
        assert _ask(_model(server.base_url)).text == "ok"
    assert len(server.requests) == 2


def test_bad_request_is_typed() -> None:
    with (
        fake_openai([openai_error(400, "context length exceeded")]) as server,
        pytest.raises(ModelError) as err,
    ):
        _ask(_model(server.base_url))
    assert err.value.kind == "bad_request" and "context length exceeded" in err.value.message
    assert len(server.requests) == 1


def test_rejected_key_never_shows_the_key(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    rejection = openai_error(401, f"Incorrect API key provided: {KEY}")
    with fake_openai([rejection]) as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert err.value.kind == "auth" and "OPENAI_API_KEY" in err.value.message
    captured = capsys.readouterr()
    for text in (str(err.value), repr(err.value), captured.out, captured.err, caplog.text):
        assert KEY not in text


def test_slow_server_times_out() -> None:
    with fake_openai([Reply(openai_completion(content="late"), delay_s=3.0)]) as server:
        with pytest.raises(ModelError) as err:
            _ask(_model(server.base_url, timeout_s=0.3))
    assert err.value.kind == "timeout"


def test_placeholder_key_is_sent_to_local_servers() -> None:
    with fake_openai([openai_completion(content="ok")]) as server:
        _ask(_model(server.base_url, api_key=NO_KEY))
    assert server.requests[0].headers["authorization"] == f"Bearer {NO_KEY}"


def test_reasoning_blocks_are_dropped_from_the_reply() -> None:
    content = '<think>first read a.py</think>\n<tool_call>{"name": "list_files"}</tool_call>'
    reply = _reply_to(openai_completion(content=content))
    assert reply.tool_calls == [ToolCall("call_local_1", "list_files", {})]
    assert reply.text == ""


@pytest.mark.parametrize(
    "body",
    [
        {"choices": [{"message": "hi"}]},
        {"choices": {"a": 1}},
        {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "n/a"}},
    ],
)
def test_a_reply_of_the_wrong_shape_is_a_typed_error(body: dict) -> None:
    with fake_openai([Reply(body)]) as server, pytest.raises(ModelError) as err:
        _ask(_model(server.base_url))
    assert err.value.kind == "connection" and "unexpected shape" in err.value.message


def test_a_local_server_may_take_as_long_as_the_run_allows() -> None:
    from coder.models.openai_model import DEFAULT_TIMEOUT_S, LOCAL_TIMEOUT_S

    local = OpenAIModel("m", api_key=NO_KEY, base_url="http://127.0.0.1:9/v1")
    hosted = OpenAIModel("gpt-4o", api_key="sk-x")
    assert local._endpoint.timeout_s == LOCAL_TIMEOUT_S > DEFAULT_TIMEOUT_S
    assert hosted._endpoint.timeout_s == DEFAULT_TIMEOUT_S
