from __future__ import annotations

import pytest

from coder.models.base import ToolSpec
from coder.models.repair import (
    RepairedCall,
    RepairError,
    call_from_object,
    calls_in_text,
    example_call,
    parse_json_like,
    repair_arguments,
    strip_reasoning,
)

EDIT = ToolSpec(
    "edit_file",
    "Replace text in a file.",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_text": {"type": "string"},
            "new_text": {"type": "string"},
        },
        "required": ["path", "old_text", "new_text"],
    },
)
READ = ToolSpec(
    "read_file",
    "Read a file.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "start_line": {"type": "integer"}},
        "required": ["path"],
    },
)
LIST = ToolSpec("list_files", "List files.", {"type": "object", "properties": {"glob": {}}})
TOOLS = [EDIT, READ, LIST]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"path": "a.py"}', {"path": "a.py"}),
        ("{'path': 'a.py'}", {"path": "a.py"}),
        ('{"path": "a.py",}', {"path": "a.py"}),
        ('{"paths": ["a", "b",],}', {"paths": ["a", "b"]}),
        ("{'ok': True, 'n': None, 'off': False}", {"ok": True, "n": None, "off": False}),
        ('```json\n{"path": "a.py"}\n```', {"path": "a.py"}),
        ("```\n{'path': 'a.py',}\n```", {"path": "a.py"}),
        ("{'text': 'say \"hi\"'}", {"text": 'say "hi"'}),
        ("{'text': 'it\\'s'}", {"text": "it's"}),
        ('{"text": "it\'s, fine",}', {"text": "it's, fine"}),
        ('{"code": "line1\nline2"}', {"code": "line1\nline2"}),
        ('{"text": "True, None ,}"}', {"text": "True, None ,}"}),
    ],
)
def test_parse_json_like_repairs_what_reads_one_way(text: str, expected: object) -> None:
    assert parse_json_like(text) == expected


@pytest.mark.parametrize("text", ['{"path": "a.py"', "{path: 'a.py'}", "{'path': 'a.py}", ""])
def test_parse_json_like_rejects_what_it_cannot_read(text: str) -> None:
    with pytest.raises(RepairError, match="not valid JSON"):
        parse_json_like(text)


def test_repair_arguments_accepts_object_string_and_double_encoding() -> None:
    assert repair_arguments({"path": "a.py"}) == {"path": "a.py"}
    assert repair_arguments('{"path": "a.py"}') == {"path": "a.py"}
    assert repair_arguments('"{\\"path\\": \\"a.py\\"}"') == {"path": "a.py"}
    assert repair_arguments("") == {}


@pytest.mark.parametrize("raw", ["[1, 2]", "42", 42, ["a"]])
def test_repair_arguments_rejects_non_objects(raw: object) -> None:
    with pytest.raises(RepairError, match="not a JSON object"):
        repair_arguments(raw)


def test_call_from_object_reads_openai_and_loose_forms() -> None:
    openai_form = {"id": "x", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
    assert call_from_object(openai_form, TOOLS) == RepairedCall("read_file", {"path": "a"})
    dict_args = {"function": {"name": "read_file", "arguments": {"path": "a"}}}
    assert call_from_object(dict_args, TOOLS) == RepairedCall("read_file", {"path": "a"})
    llama_form = {"name": "read_file", "parameters": {"path": "a"}}
    assert call_from_object(llama_form, TOOLS) == RepairedCall("read_file", {"path": "a"})
    script_form = {"tool": "read_file", "input": {"path": "a"}}
    assert call_from_object(script_form, TOOLS) == RepairedCall("read_file", {"path": "a"})


def test_missing_arguments_are_empty_only_when_the_tool_needs_none() -> None:
    assert call_from_object({"function": {"name": "list_files"}}, TOOLS) == RepairedCall(
        "list_files", {}
    )
    with pytest.raises(RepairError) as err:
        call_from_object({"function": {"name": "read_file"}}, TOOLS)
    assert "needs path" in str(err.value)
    assert '<tool_call>{"name": "read_file", "arguments": {"path": "..."}}</tool_call>' in str(
        err.value
    )


def test_unrepairable_arguments_name_the_tool_and_show_the_form() -> None:
    raw = {"function": {"name": "edit_file", "arguments": '{"path": "a.py", "old_text": '}}
    with pytest.raises(RepairError) as err:
        call_from_object(raw, TOOLS)
    message = str(err.value)
    assert message.startswith("tool call 'edit_file': not valid JSON")
    expected_form = (
        '{"name": "edit_file", "arguments": {"path": "...", "old_text": "...", "new_text": "..."}}'
    )
    assert expected_form in message


def test_call_without_a_name_is_an_error() -> None:
    with pytest.raises(RepairError, match="without a tool name"):
        call_from_object({"function": {"arguments": "{}"}}, TOOLS)


def test_example_call_uses_placeholders_by_type() -> None:
    spec = ToolSpec(
        "t",
        "",
        {"properties": {"n": {"type": "integer"}, "flag": {"type": "boolean"}, "s": {}}},
    )
    assert example_call("t", [spec]) == (
        '<tool_call>{"name": "t", "arguments": {"n": 1, "flag": true, "s": "..."}}</tool_call>'
    )


def test_tagged_calls_in_text_are_extracted_and_removed() -> None:
    text = (
        "Reading both.\n"
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>\n'
        "<tool_call>{'name': 'read_file', 'arguments': {'path': 'b.py',}}</tool_call>"
    )
    found = calls_in_text(text, TOOLS)
    assert found.calls == [
        RepairedCall("read_file", {"path": "a.py"}),
        RepairedCall("read_file", {"path": "b.py"}),
    ]
    assert found.errors == []
    assert found.text == "Reading both."


def test_unclosed_tag_at_the_end_still_counts() -> None:
    found = calls_in_text('<tool_call>{"name": "list_files", "arguments": {}}', TOOLS)
    assert found.calls == [RepairedCall("list_files", {})]


def test_broken_tagged_call_is_reported_with_the_form() -> None:
    found = calls_in_text(
        '<tool_call>{"name": "edit_file", "arguments": {"path": </tool_call>', TOOLS
    )
    assert found.calls == []
    assert len(found.errors) == 1
    assert "tool call 'edit_file' written as text is not valid JSON" in found.errors[0]
    assert "<tool_call>{" in found.errors[0]


def test_fenced_json_naming_a_known_tool_is_a_call() -> None:
    text = 'I will read it.\n```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```'
    found = calls_in_text(text, TOOLS)
    assert found.calls == [RepairedCall("read_file", {"path": "a.py"})]
    assert found.text == "I will read it."


def test_fenced_json_that_is_not_a_call_is_left_alone() -> None:
    text = 'The config is:\n```json\n{"name": "my-package", "version": "1.0"}\n```'
    found = calls_in_text(text, TOOLS)
    assert found.calls == [] and found.errors == []
    assert found.text == text


def test_broken_fence_naming_a_known_tool_is_reported() -> None:
    found = calls_in_text('```json\n{"name": "read_file", "arguments": {"path": }\n```', TOOLS)
    assert found.calls == []
    assert len(found.errors) == 1 and "'read_file'" in found.errors[0]


def test_bare_json_object_naming_a_known_tool_is_a_call() -> None:
    found = calls_in_text('{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}', TOOLS)
    assert found.calls == [RepairedCall("read_file", {"path": "a.py"})]
    assert found.text == ""


def test_plain_text_has_no_calls() -> None:
    found = calls_in_text("I think the bug is in add().", TOOLS)
    assert found.calls == [] and found.errors == [] and found.text == "I think the bug is in add()."


def test_calls_drafted_while_thinking_are_not_calls() -> None:
    text = (
        '<think>maybe <tool_call>{"name": "list_files", "arguments": {}}</tool_call>?</think>'
        "I know enough."
    )
    assert strip_reasoning(text) == "I know enough."
    assert strip_reasoning("plain") == "plain"
    assert calls_in_text(strip_reasoning(text), TOOLS).calls == []
