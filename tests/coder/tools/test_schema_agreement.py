"""What a tool's schema allows is exactly what its validator accepts, for every tool.

Inputs are generated from each schema the model is sent (hypothesis strategies built from the
JSON Schema itself, not from the pydantic models), valid ones and mutants that break one rule of
the schema; `jsonschema` confirms which is which, and the loop's own validator must agree: the
tool's model for every tool, and for `submit_plan` `validate_plan`, which may still refuse a
schema-valid plan, but only for a rule a schema cannot state (ids, dependencies, the forms),
never for its shape. A live planner once paid a turn and ~8.8k tokens for a step field the
schema allowed and the validator refused."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coder.tools.specs import TOOL_ARGS, args_problem, tool_specs
from contracts.validation import validate_plan

SPECS = {spec.name: spec for spec in tool_specs(tuple(TOOL_ARGS))}
NAMES = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20)


def instances(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the schema allows (the subset of JSON Schema the tool schemas use)."""
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for union in ("anyOf", "oneOf"):
        if union in schema:
            rest = {k: v for k, v in schema.items() if k != union}
            return st.one_of([instances({**rest, **option}) for option in schema[union]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([instances({**schema, "type": k}) for k in kind])
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        ints = st.integers(min_value=schema.get("minimum"), max_value=10**6)
        return st.one_of(ints, ints.map(float))  # 3.0 is an integer to JSON Schema
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"])
        if schema.get("format") == "regex":
            return st.text(min_size=schema.get("minLength", 0), max_size=20).filter(_compiles)
        return st.text(
            st.characters(codec="utf-8", exclude_categories=["Cs"]),
            min_size=schema.get("minLength", 0),
            max_size=20,
        )
    if kind == "array":
        return st.lists(
            instances(schema.get("items", {})), min_size=schema.get("minItems", 0), max_size=3
        )
    if kind == "object":
        return _objects(schema)
    raise AssertionError(f"a schema keyword this generator does not know: {schema}")


def _compiles(text: str) -> bool:
    try:
        re.compile(text, re.MULTILINE)
    except re.error:
        return False
    return True


def _objects(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    optional = sorted(set(props) - required)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        chosen = draw(st.sets(st.sampled_from(optional))) if optional else set()
        keys = [k for k in props if k in required or k in chosen]
        return {k: draw(instances(props[k])) for k in keys}

    return build()


@st.composite
def mutants(draw: st.DrawFn, schema: dict[str, Any]) -> tuple[Any, str]:
    """A valid value with one rule of the schema broken somewhere in it, and which rule."""
    value = draw(instances(schema))
    spots = list(_spots(schema, value, ()))
    path, sub, rule = draw(st.sampled_from(spots))
    broken = draw(_break(sub, _at(value, path), rule))
    return _replace(value, path, broken), f"{rule} at {path}"


def _spots(schema: dict[str, Any], value: Any, path: tuple[Any, ...]):
    """(path, the schema there, a rule to break) for every place in `value`."""
    for union in ("anyOf", "oneOf"):
        if union in schema:
            rest = {k: v for k, v in schema.items() if k != union}
            matching = [
                o
                for o in schema[union]
                if jsonschema.Draft202012Validator({**rest, **o}).is_valid(value)
            ]
            if len(matching) == 1:
                narrowed = _spots({**rest, **matching[0]}, value, path)
                yield from (s for s in narrowed if (s[0], s[2]) != (path, "type"))
            yield path, schema, "type"
            return
    yield path, schema, "type"
    if isinstance(value, dict):
        yield path, schema, "unknown key"
        for key in schema.get("required", []):
            yield path, {**schema, "drop": key}, "missing key"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                yield from _spots(sub, value[key], (*path, key))
    elif isinstance(value, list):
        if schema.get("minItems"):
            yield path, schema, "too few items"
        for i, item in enumerate(value):
            yield from _spots(schema.get("items", {}), item, (*path, i))
    elif isinstance(value, str) and (schema.get("minLength") or "pattern" in schema):
        yield path, schema, "too short" if schema.get("minLength") else "pattern"
    elif isinstance(value, int | float) and not isinstance(value, bool) and "minimum" in schema:
        yield path, schema, "below minimum"


def _break(schema: dict[str, Any], value: Any, rule: str) -> st.SearchStrategy[Any]:
    if rule == "unknown key":
        names = NAMES.filter(lambda n: n not in schema.get("properties", {}))
        return st.tuples(names, SAFE_TEXT).map(lambda kv: {**value, kv[0]: kv[1]})
    if rule == "missing key":
        return st.just({k: v for k, v in value.items() if k != schema["drop"]})
    if rule == "too few items":
        return st.just([])
    if rule == "too short":
        return st.just("")
    if rule == "pattern":
        return st.sampled_from(["HEAD", "HEAD~0", "main", "step:"])
    if rule == "below minimum":
        return st.just(schema["minimum"] - 1)
    wrong = [
        st.just(True),
        st.integers(-5, 5),
        st.just(1.5),
        SAFE_TEXT,
        st.just(None),
        st.lists(st.integers(), max_size=2),
        st.just({"x": 1}),
    ]
    return st.one_of(wrong).filter(
        lambda w: not jsonschema.Draft202012Validator(schema).is_valid(w)
    )


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    _at(copy, path[:-1])[path[-1]] = new
    return copy


def accepted(name: str, args: Any) -> bool:
    """The loop's own judgement of a call's input, for every tool but submit_plan."""
    if not isinstance(args, dict):
        return False
    return args_problem(name, args) is None


def shape_problems(args: Any) -> list[str]:
    check = validate_plan(args, schema_key=False)
    return [str(p) for p in check.problems if p.shape]


def plan_rejected(args: Any) -> bool:
    return not validate_plan(args, schema_key=False).ok


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OTHER_TOOLS = [n for n in TOOL_ARGS if n != "submit_plan"]


@pytest.mark.parametrize("name", OTHER_TOOLS)
def test_what_the_schema_allows_is_accepted(name):
    schema = SPECS[name].input_schema

    @SETTINGS
    @given(instances(schema))
    def check(args):
        jsonschema.validate(args, schema)
        assert accepted(name, args), (args, args_problem(name, args))
        assert TOOL_ARGS[name].model_validate(args)

    check()


@pytest.mark.parametrize("name", OTHER_TOOLS)
def test_what_the_schema_refuses_is_refused(name):
    schema = SPECS[name].input_schema

    @SETTINGS
    @given(mutants(schema))
    def check(mutant):
        args, rule = mutant
        assert not jsonschema.Draft202012Validator(schema).is_valid(args), rule
        assert not accepted(name, args), (rule, args)

    check()


def test_a_plan_the_schema_allows_has_no_problem_of_shape():
    schema = SPECS["submit_plan"].input_schema

    @SETTINGS
    @given(instances(schema))
    def check(plan):
        jsonschema.validate(plan, schema)
        assert shape_problems(plan) == [], plan

    check()


def test_a_plan_the_schema_refuses_is_refused():
    schema = SPECS["submit_plan"].input_schema

    @SETTINGS
    @given(mutants(schema))
    def check(mutant):
        plan, rule = mutant
        assert not jsonschema.Draft202012Validator(schema).is_valid(plan), rule
        assert plan_rejected(plan), (rule, plan)

    check()


def test_a_step_with_a_field_of_its_own_is_refused_by_the_schema_too():
    """The live failure: `details` in a step passed the schema and failed the validator."""
    step = {
        "stepId": "fix",
        "intendedModification": {"files": ["a.py"], "invariants": ["All tests pass"]},
        "details": "what the planner wanted to add",
    }
    plan = {"goal": "g", "steps": [step]}
    assert not jsonschema.Draft202012Validator(SPECS["submit_plan"].input_schema).is_valid(plan)
    assert "unknown field" in "\n".join(shape_problems(plan))
    del step["details"]
    jsonschema.validate(plan, SPECS["submit_plan"].input_schema)
    assert validate_plan(plan, schema_key=False).ok


def test_every_tool_is_walked():
    assert set(SPECS) == set(TOOL_ARGS)
