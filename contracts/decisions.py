"""Typed decisions: every model reply decodes to exactly one of these, or to a parse error.

The loop matches on them; nothing downstream inspects raw model text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Call:
    id: str
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Act:
    """Run tools; observations go back to the model."""

    calls: list[Call]
    kind: Literal["act"] = "act"


@dataclass(frozen=True)
class Ask:
    question: str
    call_id: str = ""
    before: list[Call] = field(default_factory=list)
    kind: Literal["ask"] = "ask"


@dataclass(frozen=True)
class Final:
    """The model says its phase is done: a plan submitted, a step finished, or the task answered."""

    tool: str
    args: dict[str, Any]
    call_id: str = ""
    before: list[Call] = field(default_factory=list)
    """Calls in the same turn before the final one; they run first."""
    kind: Literal["final"] = "final"


@dataclass(frozen=True)
class Stop:
    reason: str
    call_id: str = ""
    before: list[Call] = field(default_factory=list)
    kind: Literal["stop"] = "stop"


@dataclass(frozen=True)
class ParseError:
    """A reply the loop could not act on; shown to the model with the exact form to use."""

    message: str
    kind: Literal["parse_error"] = "parse_error"


Decision = Act | Ask | Final | Stop | ParseError
