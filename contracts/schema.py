"""JSON Schema export: `coder schema plan|script|result` for people and other tools, and the
input schemas of the tools the model is sent (`wire_schema`, `plan_input_schema`).

Every schema comes from the pydantic model that validates the same data, so what a schema allows
is what is accepted. The plan's is richer than its model: invariant items are a string (a
compilable form) or one of the invariant objects (each validated by its own model, its `kind`
required as the discriminated union requires it), and rollback targets carry their pattern.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, TypeAdapter

from contracts.compiler import COMPILABLE_FORMS
from contracts.invariants import PlanInvariant
from contracts.plan import Plan
from contracts.script import Script

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class UnknownSchemaError(ValueError):
    """The name is not one of SCHEMA_NAMES; the message lists them."""


def _plan() -> dict[str, Any]:
    schema = Plan.model_json_schema(by_alias=True)
    objects = _invariant_objects()
    defs = schema.setdefault("$defs", {})
    defs.update(objects.pop("$defs", {}))
    text = {
        "type": "string",
        "minLength": 1,
        "description": "Compiled to a kind by rules; forms: " + "; ".join(COMPILABLE_FORMS),
    }
    modification = defs["IntendedModification"]["properties"]
    modification["invariants"]["items"] = {"anyOf": [text, objects]}
    modification["files"]["items"]["minLength"] = 1
    rollback = defs["RollbackPlan"]["properties"]["gitCheckout"]
    rollback["pattern"] = r"^(HEAD~[1-9][0-9]*|step:.+)$"
    schema["properties"] = {
        "$schema": {
            "type": "string",
            "description": "Where an editor finds this schema (a path or URL); coder ignores it.",
        },
        **schema["properties"],
    }
    return schema


def _invariant_objects() -> dict[str, Any]:
    """The invariant objects a plan may spell out, `kind` required in each (pydantic's tagged
    union cannot pick a model without it, and says so), without pydantic's `discriminator`,
    which JSON Schema does not know."""
    objects = TypeAdapter(PlanInvariant).json_schema(by_alias=True)
    objects.pop("discriminator", None)
    for definition in objects.get("$defs", {}).values():
        if "kind" in definition.get("properties", {}):
            definition["required"] = ["kind", *definition.get("required", [])]
    return objects


def plan_input_schema() -> dict[str, Any]:
    """`submit_plan`'s input as the model is sent it: the plan schema, compact (no titles, no
    forms list: the briefing gives the grammar), every `$ref` inlined."""
    schema = _plan()
    schema["properties"].pop("$schema")
    return compact(schema, keep_descriptions=False)


def wire_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A tool's input schema from the pydantic model that validates it, compact."""
    return compact(model.model_json_schema(by_alias=True))


def compact(schema: dict[str, Any], *, keep_descriptions: bool = True) -> dict[str, Any]:
    """The same constraints in fewer bytes (the tools travel with every model call): `$ref`s
    inlined, titles and defaults dropped (a default is what the harness does with a missing
    key: nothing to send, nothing that changes what is valid), a `const` alone, `anyOf [X,
    null]` as `type: [X, "null"]`, the options of a union alike but for one tag merged
    (`_merge_tagged`) and their common `type` said once. The top-level description goes: it
    is the tool's own. Field descriptions stay unless `keep_descriptions` is off."""
    defs = schema.get("$defs", {})

    def walk(node: Any, top: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk({**defs[node["$ref"].rsplit("/", 1)[1]], **_without(node, "$ref")})
        out = {}
        for key, value in node.items():
            if key in ("title", "$defs", "discriminator", "default"):
                continue
            if key == "description" and (top or not keep_descriptions):
                continue
            out[key] = value if key in ("properties", "const", "default", "enum") else walk(value)
        if "properties" in out:
            out["properties"] = {k: walk(v) for k, v in out["properties"].items()}
        if "const" in out:  # its type says nothing more
            return {k: v for k, v in out.items() if k in ("const", "description")}
        for union in ("anyOf", "oneOf"):
            if union in out:
                out = _common_type(out, union, _merge_tagged(out[union]))
        return _nullable(out)

    return walk(schema, top=True)  # type: ignore[no-any-return]


def _tag(option: dict[str, Any]) -> str | None:
    """The one property of an object option that is a required `const` (an invariant's
    `kind`). Required: options whose tag may be missing can overlap, and merging overlapping
    options of a `oneOf` would allow what matched two of them."""
    props = option.get("properties", {})
    tags = [k for k, v in props.items() if isinstance(v, dict) and "const" in v]
    return tags[0] if len(tags) == 1 and tags[0] in option.get("required", []) else None


def _merge_tagged(options: list[Any]) -> list[Any]:
    """Options that differ only in their tag's `const` as one option whose tag is an `enum`
    of those values: `signature_unchanged` and `signature_compatible` take the same fields.
    The same values are valid (the tags stay disjoint, so a `oneOf` still matches once); the
    model reads the shared fields once."""
    slots: list[Any] = []
    values: dict[str, list[Any]] = {}
    for option in options:
        tag = _tag(option) if isinstance(option, dict) else None
        if tag is None:
            slots.append(option)
            continue
        rest = {**option, "properties": {**option["properties"], tag: None}}
        rest["required"] = sorted(option.get("required", []))
        shape = json.dumps([tag, rest], sort_keys=True)
        if shape not in values:
            values[shape] = []
            slots.append((shape, tag, option))
        values[shape].append(option["properties"][tag]["const"])
    merged = []
    for slot in slots:
        if not isinstance(slot, tuple):
            merged.append(slot)
            continue
        shape, tag, option = slot
        if len(values[shape]) > 1:
            option = {
                **option,
                "properties": {**option["properties"], tag: {"enum": values[shape]}},
            }
        merged.append(option)
    return merged


def _common_type(node: dict[str, Any], union: str, options: list[Any]) -> dict[str, Any]:
    """The union's options, their `type` said once on the union when all share it."""
    kinds = {json.dumps(o.get("type")) if isinstance(o, dict) else None for o in options}
    if len(options) < 2 or len(kinds) != 1 or None in kinds or "type" in node:
        return {**node, union: options}
    kind = options[0].get("type")
    if kind is None:
        return {**node, union: options}
    return {**node, "type": kind, union: [_without(o, "type") for o in options]}


def _without(node: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k != key}


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [{"type": X, ...}, {"type": "null"}], ...}` as `{"type": [X, "null"], ...}`:
    the same values allowed (X's other keywords apply to X's values only)."""
    options = node.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
        return node
    other = next(o for o in options if o != {"type": "null"})
    if not isinstance(other.get("type"), str) or set(other) & set(node):
        return node
    return {**_without(node, "anyOf"), **other, "type": [other["type"], "null"]}


def _script() -> dict[str, Any]:
    return Script.model_json_schema()


def _result() -> dict[str, Any]:
    from contracts.result import RunResult  # the lead's module; imported only when asked for

    return RunResult.model_json_schema(by_alias=True)


_SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "plan": _plan,
    "script": _script,
    "result": _result,
}
SCHEMA_NAMES: tuple[str, ...] = tuple(_SCHEMAS)


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a wire format; UnknownSchemaError lists the names."""
    build = _SCHEMAS.get(name)
    if build is None:
        raise UnknownSchemaError(f"unknown schema {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    return {"$schema": DIALECT, **build()}
