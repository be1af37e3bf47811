"""JSON Schema export (`coder schema plan|script|result`) for people and for other tools.

The plan schema is richer than the pydantic model it comes from: invariant items are a string
(whose description lists the compilable forms) or one of the invariant objects, and rollback
targets carry their pattern, so an editor can check a plan before `coder check-plan` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

from contracts.compiler import COMPILABLE_FORMS
from contracts.invariants import PlanInvariant
from contracts.plan import Plan
from contracts.script import Script

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class UnknownSchemaError(ValueError):
    """The name is not one of SCHEMA_NAMES; the message lists them."""


def _plan() -> dict[str, Any]:
    schema = Plan.model_json_schema(by_alias=True)
    objects = TypeAdapter(PlanInvariant).json_schema(by_alias=True)
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
