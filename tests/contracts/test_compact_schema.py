"""The schemas sent with every model call say each constraint once, and still allow exactly
what they allowed (issue 31: generating submit_plan's schema from the plan's models made the
plan phase's tools 2.8 KB -> 5.3 KB a call, and the replayed real suite 5-7% dearer)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import jsonschema
import pytest

from coder.loop.conversation.prompts import SYSTEM_RULES
from coder.tools.specs import EXECUTE_TOOLS, PLAN_TOOLS, REACT_TOOLS, TOOL_ARGS, tool_specs
from contracts.invariants import INVARIANT_KINDS
from contracts.schema import compact, plan_input_schema


def _invariant_objects() -> list[dict[str, Any]]:
    step = plan_input_schema()["properties"]["steps"]["items"]
    item = step["properties"]["intendedModification"]["properties"]["invariants"]["items"]
    objects = next(option for option in item["anyOf"] if "oneOf" in option)
    assert objects["type"] == "object"
    return objects["oneOf"]  # type: ignore[no-any-return]


def _kinds(option: dict[str, Any]) -> list[str]:
    kind = option["properties"]["kind"]
    return [kind["const"]] if "const" in kind else kind["enum"]


def test_invariant_objects_with_the_same_fields_are_one_option_naming_their_kinds():
    options = _invariant_objects()
    named = [k for option in options for k in _kinds(option)]
    assert sorted(named) == sorted(set(INVARIANT_KINDS) - {"files_within_scope", "advisory"})
    shapes = [
        json.dumps({**o, "properties": {**o["properties"], "kind": None}}, sort_keys=True)
        for o in options
    ]
    assert len(set(shapes)) == len(shapes)
    pairs = [sorted(_kinds(o)) for o in options if len(_kinds(o)) > 1]
    assert ["signature_compatible", "signature_unchanged"] in pairs
    assert ["text_absent", "text_present"] in pairs


def _walk(node: Any):
    """Every subschema (a property's name, `title` say, is no keyword)."""
    if isinstance(node, list):
        for value in node:
            yield from _walk(value)
    elif isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key == "properties":
                for sub in value.values():
                    yield from _walk(sub)
            elif key not in ("const", "enum"):
                yield from _walk(value)


def test_no_tool_schema_sends_defaults_or_titles():
    for spec in tool_specs(tuple(TOOL_ARGS)):
        for node in _walk(spec.input_schema):
            assert "default" not in node and "title" not in node, (spec.name, node)


TAGGED = {
    "type": "array",
    "items": {
        "oneOf": [
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"kind": {"const": "a"}, "x": {"type": "string"}},
                "required": ["kind", "x"],
            },
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"x": {"type": "string"}, "kind": {"const": "b"}},
                "required": ["x", "kind"],
            },
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"kind": {"const": "c"}, "x": {"type": "integer"}},
                "required": ["kind", "x"],
            },
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"kind": {"const": "d"}, "x": {"type": "string"}},
                "required": ["kind"],
            },
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"kind": {"const": "e"}, "y": {"type": "integer"}},
            },
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"kind": {"const": "f"}, "y": {"type": "integer"}},
            },
        ]
    },
}


def test_compact_merges_options_alike_but_for_their_tag_and_says_their_type_once():
    items = compact(TAGGED)["items"]
    assert items["type"] == "object"
    assert [o["properties"]["kind"] for o in items["oneOf"]] == [
        {"enum": ["a", "b"]},
        {"const": "c"},
        {"const": "d"},
        {"const": "e"},  # a tag that may be missing: {"y": 1} matches both, so not one of
        {"const": "f"},
    ]
    assert all("type" not in o for o in items["oneOf"])


@pytest.mark.parametrize(
    "value",
    [
        [{"kind": "a", "x": "s"}],
        [{"kind": "b", "x": "s"}],
        [{"kind": "c", "x": 1}],
        [{"kind": "c", "x": "s"}],
        [{"kind": "b", "x": 1}],
        [{"kind": "d"}],
        [{"kind": "a"}],
        [{"kind": "e", "x": "s"}],
        [{"kind": "a", "x": "s", "y": 1}],
        [{"y": 1}],
        [{"kind": "e", "y": 1}],
        ["a"],
        [None],
        [[{"kind": "a", "x": "s"}]],
    ],
)
def test_compact_allows_exactly_what_the_schema_it_came_from_allows(value):
    before = jsonschema.Draft202012Validator(TAGGED).is_valid(value)
    assert jsonschema.Draft202012Validator(compact(TAGGED)).is_valid(value) == before


def _call_bytes(tools: tuple[str, ...]) -> int:
    specs = [asdict(spec) for spec in tool_specs(tools)]
    return len(json.dumps({"system": SYSTEM_RULES, "tools": specs}, separators=(",", ":")))


def test_what_every_call_of_a_phase_carries_stays_within_its_budget():
    """System rules and tools, as the scripted model counts a request. The budgets are the
    figures of issue 31's trim with a little room: the plan phase was 9.7 KB a call after the
    one-schema change (8.2 KB at the base it was measured against)."""
    assert _call_bytes(PLAN_TOOLS) <= 5_100
    assert _call_bytes(EXECUTE_TOOLS) <= 3_900
    assert _call_bytes(REACT_TOOLS) <= 3_550
