"""The scripted model (`script:PATH`): turns from a file, returned in order, whatever was asked.

It implements the real `Model` protocol, so the loop cannot tell it from a provider: tool call
ids are deterministic (`call_<turn>_<i>`, both counted from 1), token counts are estimated from
the sizes of the request and the reply, and running out of turns is a `ModelError("exhausted")`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from coder.models.base import (
    ConfigError,
    Message,
    ModelError,
    ModelReply,
    ToolCall,
    ToolSpec,
    Usage,
)
from contracts.script import ScriptError, load_script
from summarizers.tokens import estimate_tokens


@dataclass(frozen=True)
class ScriptedCall:
    tool: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ScriptedTurn:
    """One reply to give: its text and the tool calls it makes (none for a text turn)."""

    text: str
    calls: tuple[ScriptedCall, ...]
    usage: tuple[int, int] | None = None
    """(input, output) tokens a recorded model reported; None means estimate them."""


def request_text(system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
    """The request serialized the same way every time, so its size is a stable token estimate."""
    document = {
        "system": system,
        "messages": [asdict(m) for m in messages],
        "tools": [asdict(t) for t in tools],
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), default=str)


def reply_text(text: str, calls: Sequence[ToolCall]) -> str:
    document = {"text": text, "tool_calls": [asdict(c) for c in calls]}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), default=str)


def load_turns(path: Path) -> list[ScriptedTurn]:
    """The turns of a script file; `ConfigError` naming the file and the turn when it is bad."""
    try:
        script = load_script(path)
    except ScriptError as err:
        raise ConfigError(" ".join(f"bad script {err}".split())) from None
    return [
        ScriptedTurn(
            turn.text,
            tuple(ScriptedCall(c.tool, dict(c.input)) for c in turn.tool_calls()),
            (turn.usage.input, turn.usage.output) if turn.usage else None,
        )
        for turn in script.turns
    ]


class ScriptedModel:
    """Replies from a fixed list of turns; deterministic, offline and instant."""

    def __init__(self, turns: Sequence[ScriptedTurn], *, name: str = "script") -> None:
        self.name = name
        self.turns = list(turns)
        self.position = 0

    @classmethod
    def from_file(cls, path: Path) -> ScriptedModel:
        return cls(load_turns(path), name=f"script:{path}")

    @property
    def remaining(self) -> int:
        return len(self.turns) - self.position

    def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int = 4096,
        timeout_s: float | None = None,
    ) -> ModelReply:
        if self.position >= len(self.turns):
            raise ModelError(
                "exhausted",
                f"{self.name} has no turn {self.position + 1}: all {len(self.turns)} were used",
            )
        turn = self.turns[self.position]
        self.position += 1
        calls = [
            ToolCall(f"call_{self.position}_{i}", c.tool, copy.deepcopy(c.input))
            for i, c in enumerate(turn.calls, start=1)
        ]
        return ModelReply(
            text=turn.text,
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            usage=Usage(*turn.usage)
            if turn.usage
            else Usage(
                input_tokens=estimate_tokens(request_text(system, messages, tools)),
                output_tokens=estimate_tokens(reply_text(turn.text, calls)),
            ),
            latency_s=0.0,
        )
