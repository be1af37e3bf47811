"""Context: the bounded view a model call sees, rebuilt from state for every call.

A phase's conversation keeps every tool output whole; what is *sent* masks outputs older than
the last few turns to one line each, and masks harder until the whole call fits the limit.
The full outputs stay in the trace; the model can always ask again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from coder.models.base import Message, TextPart, ToolCallPart, ToolResultPart, ToolSpec
from summarizers.tokens import estimate_tokens


@dataclass
class ResultEntry:
    part: ToolResultPart
    masked: str
    """The one line that stands in for the output once it is stale."""


@dataclass
class Turn:
    assistant: Message
    results: list[ResultEntry] = field(default_factory=list)
    note: str = ""
    """Feedback for a reply that held no usable tool call."""


@dataclass
class Conversation:
    briefing: str
    turns: list[Turn] = field(default_factory=list)

    def add(self, turn: Turn) -> None:
        self.turns.append(turn)

    def render(self, keep_recent: int, skip: int = 0) -> list[Message]:
        messages = [Message.user(self.briefing)]
        if skip:
            messages[0] = Message.user(
                f"{self.briefing}\n\n({skip} earlier turns of this phase were dropped to fit "
                "the context; the trace keeps them.)"
            )
        live = self.turns[skip:]
        for index, turn in enumerate(live):
            stale = index < len(live) - keep_recent
            messages.append(turn.assistant)
            if turn.results:
                parts: tuple[ToolResultPart | TextPart, ...] = tuple(
                    ToolResultPart(r.part.call_id, r.masked, r.part.is_error) if stale else r.part
                    for r in turn.results
                )
                if turn.note:
                    parts += (TextPart(turn.note),)
                messages.append(Message("user", parts))
            else:
                messages.append(Message.user(turn.note))
        return messages


def measure(system: str, messages: list[Message], tools: list[ToolSpec]) -> int:
    size = estimate_tokens(system)
    size += sum(
        estimate_tokens(json.dumps(t.input_schema)) + estimate_tokens(t.description) for t in tools
    )
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                size += estimate_tokens(part.text)
            elif isinstance(part, ToolCallPart):
                size += estimate_tokens(part.name + json.dumps(part.input, ensure_ascii=False))
            else:
                size += estimate_tokens(part.content)
    return size


def fit(
    conversation: Conversation, system: str, tools: list[ToolSpec], limit: int, keep_recent: int
) -> tuple[list[Message], int]:
    """The richest rendering that fits `limit` tokens: fewer whole turns, then fewer turns."""
    for keep in range(min(keep_recent, len(conversation.turns)), -1, -1):
        messages = conversation.render(keep)
        size = measure(system, messages, tools)
        if size <= limit:
            return messages, size
    for skip in range(1, len(conversation.turns) + 1):
        messages = conversation.render(0, skip)
        size = measure(system, messages, tools)
        if size <= limit:
            return messages, size
    return messages, size


def mask_line(tool: str, args: dict, status: str, text: str) -> str:
    first = text.strip().splitlines()[0][:120] if text.strip() else ""
    target = (
        args.get("path") or args.get("command") or args.get("pattern") or args.get("glob") or ""
    )
    return f"[stale {tool} {str(target)[:80]} → {status}: {first} … ({len(text)} chars masked; call again to see it)]"
