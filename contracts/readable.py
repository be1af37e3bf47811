"""pydantic errors turned into lines a person or a planning model can act on.

A planner that wrote `"dependsOn"` needs "unknown field; did you mean 'dependencies'?", not a
traceback or a URL; the same wording serves plans and scripted-model files.
"""

from __future__ import annotations

import difflib
import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from contracts.plan import json_type

Loc = tuple[str | int, ...]

_EXPECTED = {
    "string_type": "a string",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
}

_BOUNDS = {
    "greater_than_equal": (">=", "ge"),
    "greater_than": (">", "gt"),
    "less_than_equal": ("<=", "le"),
    "less_than": ("<", "lt"),
}


def readable_errors(
    exc: ValidationError, model: type[BaseModel] | None = None
) -> list[tuple[Loc, str]]:
    """(location, message) per error, in pydantic's order, without duplicates."""
    seen: set[tuple[Loc, str]] = set()
    out: list[tuple[Loc, str]] = []
    for error in exc.errors(include_url=False):
        loc: Loc = tuple(error["loc"])
        item = (loc, _message(error, loc, model))
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def loc_path(loc: Loc) -> str:
    """`('steps', 2, 'stepId')` -> `steps[2].stepId`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _message(error: Any, loc: Loc, model: type[BaseModel] | None) -> str:
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return "missing (required)"
    if kind == "extra_forbidden":
        return _unknown_field(loc, model)
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_shown(value)}"
    if kind == "too_short":
        return "must not be empty" if ctx.get("min_length") == 1 else error["msg"].lower()
    if kind in _BOUNDS:
        symbol, key = _BOUNDS[kind]
        return f"must be {symbol} {ctx.get(key)}, got {_shown(value)}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind in ("value_error", "assertion_error"):
        return str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    message = str(error["msg"])
    return message[:1].lower() + message[1:]


def _shown(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json_type(value)
    text = repr(value)
    return f"{json_type(value)} {text if len(text) <= 40 else text[:37] + '...'}"


def _unknown_field(loc: Loc, model: type[BaseModel] | None) -> str:
    known = _fields_at(model, loc[:-1]) if model is not None else None
    if not known:
        return "unknown field"
    name = str(loc[-1])
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown field{hint} (fields here: {', '.join(known)})"


def _fields_at(model: type[BaseModel], loc: Loc) -> list[str] | None:
    """The wire names of the fields of the model found at `loc` inside `model`."""
    current: Any = model
    for part in loc:
        current = _strip(current)
        if isinstance(part, int):
            args = get_args(current)
            if get_origin(current) is not list or not args:
                return None
            current = args[0]
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = next(
            (f for n, f in current.model_fields.items() if part in (n, f.alias)),
            None,
        )
        if field is None:
            return None
        current = field.annotation
    current = _strip(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items() if n != "source"]
    return None


def _strip(annotation: Any) -> Any:
    """Unwrap Annotated[...] and `X | None` down to X."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation
