"""The scripted-model file (`script:PATH`): the turns a scripted model replays, in order.

Scripts drive tests and `coder bench` without a network, so a mistake in one must be reported
as a single line naming the turn, before any run starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import yaml  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError

from contracts.plan import json_type
from contracts.readable import loc_path, readable_errors


class ScriptError(Exception):
    """A script that cannot be used; the message is one line, `turn` the first bad turn index."""

    def __init__(self, message: str, turn: int | None = None) -> None:
        super().__init__(message)
        self.turn = turn


class _ScriptModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class ScriptCall(_ScriptModel):
    tool: str = Field(min_length=1)
    """The tool name; not checked against the vocabulary, so scripts can test unknown tools."""
    input: dict[str, Any] = Field(default_factory=dict)


class RecordedUsage(_ScriptModel):
    """Token figures a real model reported; a replay reports them instead of estimates."""

    input: int = Field(ge=0)
    output: int = Field(ge=0)


class ToolTurn(ScriptCall):
    """One tool call."""

    text: str = ""
    """Text the model wrote beside the call (kept by --record so a replay sees the same context)."""
    usage: RecordedUsage | None = None

    def tool_calls(self) -> list[ScriptCall]:
        return [ScriptCall(tool=self.tool, input=self.input)]


class CallsTurn(_ScriptModel):
    """Several tool calls in one reply; they run in order."""

    calls: list[ScriptCall] = Field(min_length=1)
    text: str = ""
    usage: RecordedUsage | None = None

    def tool_calls(self) -> list[ScriptCall]:
        return list(self.calls)


class TextTurn(_ScriptModel):
    """A reply with no tool call, as a model gives when it forgets to call one."""

    text: str
    usage: RecordedUsage | None = None

    def tool_calls(self) -> list[ScriptCall]:
        return []


def _turn_shape(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in ("calls", "tool", "text"):
            if key in value:
                return key
        return None
    shapes: dict[type, str] = {ToolTurn: "tool", CallsTurn: "calls", TextTurn: "text"}
    return shapes.get(type(value))


Turn = Annotated[
    Annotated[ToolTurn, Tag("tool")]
    | Annotated[CallsTurn, Tag("calls")]
    | Annotated[TextTurn, Tag("text")],
    Discriminator(
        _turn_shape,
        custom_error_type="turn_shape",
        custom_error_message="a turn is {tool, input}, {calls: [{tool, input}, ...]} or {text}",
    ),
]


class Script(_ScriptModel):
    turns: list[Turn]


def parse_script(data: object, *, source: str = "script") -> Script:
    """A Script from parsed JSON/YAML; raises ScriptError naming the first bad turn."""
    if not isinstance(data, dict):
        raise ScriptError(f"{source}: expected an object with 'turns', got {json_type(data)}")
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        errors = readable_errors(exc, Script)
        turn = next((loc[1] for loc, _ in errors if len(loc) > 1 and isinstance(loc[1], int)), None)
        details = "; ".join(f"{_shape_loc(loc)}: {message}" for loc, message in errors)
        raise ScriptError(f"{source}: {details}", turn) from None


def _shape_loc(loc: tuple[str | int, ...]) -> str:
    # pydantic puts the turn's shape tag in the location: ('turns', 2, 'tool', 'input').
    if len(loc) > 2 and loc[0] == "turns":
        loc = loc[:2] + loc[3:]
    return loc_path(loc)


def load_script(path: Path) -> Script:
    """Read a script, JSON or YAML by extension (by content when the extension says neither)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScriptError(f"{path}: cannot read the script: {reason}") from None
    suffix = path.suffix.lower()
    if suffix == ".json" or (suffix not in (".yaml", ".yml") and text.lstrip().startswith("{")):
        data = _parse_json(text, path)
    else:
        data = _parse_yaml(text, path)
    return parse_script(data, source=str(path))


def _parse_json(text: str, path: Path) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise ScriptError(f"{path}: not a usable JSON script: {reason}") from None


def _parse_yaml(text: str, path: Path) -> object:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScriptError(f"{where}: not valid YAML: {problem}") from None
    except RecursionError:
        raise ScriptError(f"{path}: not a usable YAML script: nested too deeply") from None
