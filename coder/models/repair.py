"""Repair of the tool calls small local models get wrong, as pure functions of the reply.

What can be read in only one way is repaired: arguments given as an object instead of a string,
single quotes, trailing commas, Python literals, a fenced or doubly encoded JSON text, a call
written into the text as `<tool_call>{...}</tool_call>`, a fenced block or a bare JSON object
naming a known tool. What cannot becomes a `RepairError` whose message shows the exact form to
use; the provider hands it back to the model as a parse error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coder.models.base import ToolSpec

_ARGUMENT_KEYS = ("arguments", "parameters", "input", "args")
_NAME_KEYS = ("name", "tool")
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_REASONING = re.compile(r"<think>.*?</think>", re.DOTALL)


class RepairError(ValueError):
    """A tool call that cannot be read unambiguously; the message says what to send instead."""


@dataclass(frozen=True)
class RepairedCall:
    name: str
    input: dict[str, Any]


@dataclass
class TextCalls:
    """Tool calls found in a reply's text, the problems met, and the text without them."""

    calls: list[RepairedCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    text: str = ""


def example_call(name: str | None, tools: Sequence[ToolSpec]) -> str:
    """The exact text of a well-formed call to `name` (or to the first tool), for error messages."""
    spec = next((t for t in tools if t.name == name), tools[0] if tools else None)
    if spec is None:
        return '<tool_call>{"name": "TOOL", "arguments": {}}</tool_call>'
    props: Mapping[str, Any] = spec.input_schema.get("properties") or {}
    wanted = spec.input_schema.get("required") or list(props)
    placeholders = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
    example = {
        key: placeholders.get(str((props.get(key) or {}).get("type")), "...") for key in wanted
    }
    body = json.dumps({"name": spec.name, "arguments": example})
    return f"<tool_call>{body}</tool_call>"


def _use_instead(name: str | None, tools: Sequence[ToolSpec]) -> str:
    return (
        "call the tool through function calling with a JSON object of arguments, "
        f"or write exactly: {example_call(name, tools)}"
    )


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    match = _FENCE.fullmatch(stripped)
    return match.group(2).strip() if match else stripped


def _normalize_json_like(text: str) -> str:
    """Rewrite single-quoted strings, trailing commas and Python literals as JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in "\"'":
            i = _copy_string(text, i, out)
            continue
        if char == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                i += 1
                continue
        if char.isalpha() or char == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_LITERALS.get(word, word))
            i = j
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _copy_string(text: str, start: int, out: list[str]) -> int:
    """Copy the string literal at `start` to `out` as a double-quoted JSON string."""
    quote = text[start]
    out.append('"')
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            escaped = text[i + 1]
            out.append("'" if (quote == "'" and escaped == "'") else text[i : i + 2])
            i += 2
            continue
        if char == quote:
            out.append('"')
            return i + 1
        out.append('\\"' if char == '"' else char)
        i += 1
    raise RepairError("a string in the arguments is never closed")


def parse_json_like(text: str) -> Any:
    """Parse JSON as a small model writes it; raise `RepairError` saying why it is not JSON."""
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError as first:
        candidate = _strip_fence(text)
        try:
            return json.loads(_normalize_json_like(candidate), strict=False)
        except (json.JSONDecodeError, RepairError):
            raise RepairError(f"not valid JSON ({first.msg} at character {first.pos})") from None


def repair_arguments(raw: object) -> dict[str, Any]:
    """The arguments of one call as an object, whatever form they arrived in."""
    value: Any = raw
    for _ in range(2):  # a JSON string may itself hold a JSON string (double encoding)
        if not isinstance(value, str):
            break
        value = parse_json_like(value) if value.strip() else {}
    if isinstance(value, dict):
        return value
    raise RepairError(f"the arguments are {type(value).__name__}, not a JSON object")


def _name_of(obj: Mapping[str, Any]) -> str | None:
    function = obj.get("function")
    if isinstance(function, str) and function:
        return function
    for key in _NAME_KEYS:
        value = obj.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _required(name: str, tools: Sequence[ToolSpec]) -> list[str]:
    spec = next((t for t in tools if t.name == name), None)
    return list(spec.input_schema.get("required") or []) if spec else []


def call_from_object(obj: Mapping[str, Any], tools: Sequence[ToolSpec]) -> RepairedCall:
    """One call from an OpenAI `tool_calls` entry or from a JSON object the model wrote.

    Accepts `{"function": {"name", "arguments"}}`, `{"name", "arguments"}` and its variants
    (`parameters`, `input`, `args`; `tool` for the name). Missing arguments are repaired to {}
    only when the tool requires none: otherwise the values are unknown and it is an error.
    """
    function = obj.get("function")
    source: Mapping[str, Any] = function if isinstance(function, Mapping) else obj
    name = _name_of(source)
    if name is None:
        raise RepairError(f"a tool call without a tool name; {_use_instead(None, tools)}")
    key = next((k for k in _ARGUMENT_KEYS if source.get(k) not in (None, "")), None)
    try:
        if key is not None:
            return RepairedCall(name, repair_arguments(source[key]))
    except RepairError as err:
        raise RepairError(f"tool call {name!r}: {err}; {_use_instead(name, tools)}") from None
    if missing := _required(name, tools):
        raise RepairError(
            f"tool call {name!r} came without arguments (it needs {', '.join(missing)}); "
            f"{_use_instead(name, tools)}"
        )
    return RepairedCall(name, {})


def _calls_in_json(
    body: str, tools: Sequence[ToolSpec], *, explicit: bool
) -> tuple[list[RepairedCall], list[str]] | None:
    """Calls in one JSON text; None when it is not a call and `explicit` is False."""
    known = {t.name for t in tools}
    try:
        parsed = parse_json_like(body)
    except RepairError as err:
        guessed = re.search(r"[\"']?(?:name|tool)[\"']?\s*:\s*[\"'](\w+)[\"']", body)
        name = guessed.group(1) if guessed else None
        if explicit or name in known:
            label = f"tool call {name!r}" if name else "a tool call"
            return [], [f"{label} written as text is {err}; {_use_instead(name, tools)}"]
        return None
    objects = parsed if isinstance(parsed, list) else [parsed]
    if not all(isinstance(o, Mapping) for o in objects) or not objects:
        if explicit:
            return [], [f"a tool call must be a JSON object; {_use_instead(None, tools)}"]
        return None
    if not explicit and not all(_name_of(o) in known for o in objects):
        return None
    calls: list[RepairedCall] = []
    errors: list[str] = []
    for obj in objects:
        try:
            calls.append(call_from_object(obj, tools))
        except RepairError as err:
            errors.append(str(err))
    return calls, errors


def strip_reasoning(text: str) -> str:
    """Drop closed `<think>` blocks: a call drafted while thinking is not a call made."""
    return _REASONING.sub("", text).strip() if "<think>" in text else text


def calls_in_text(text: str, tools: Sequence[ToolSpec]) -> TextCalls:
    """Tool calls a model wrote into its text instead of making them.

    `<tool_call>` tags are explicit, so their content is always taken as a call. A fenced block or
    the whole text counts only when it is JSON naming a known tool (or clearly meant to).
    """
    if "<tool_call>" in text:
        found = TextCalls()
        for match in _TAGGED.finditer(text):
            calls, errors = _calls_in_json(match.group(1), tools, explicit=True) or ([], [])
            found.calls.extend(calls)
            found.errors.extend(errors)
        found.text = _TAGGED.sub("", text).strip()
        return found
    found = TextCalls(text=text)
    for match in _FENCE.finditer(text):
        if match.group(1).lower() not in ("", "json", "tool_call", "tool"):
            continue
        result = _calls_in_json(match.group(2), tools, explicit=False)
        if result is not None:
            found.calls.extend(result[0])
            found.errors.extend(result[1])
            found.text = found.text.replace(match.group(0), "")
    if not found.calls and not found.errors and text.strip().startswith("{"):
        result = _calls_in_json(text, tools, explicit=False)
        if result is not None:
            found.calls, found.errors, found.text = result[0], result[1], ""
    found.text = found.text.strip()
    return found
