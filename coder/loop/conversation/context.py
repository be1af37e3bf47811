"""The context policy: what each model call of a phase sees of the phase's conversation.

Providers bill a request by its prefix: what repeats byte for byte since an earlier call is
read from the prompt cache at a tenth of the price, and everything from the first changed byte
on is written again at 1.25x. Masking one old output per turn therefore rewrites the whole tail
of the conversation every turn. So the view changes as rarely as it can: nothing is masked while
the phase's context is under `threshold`; past it, the oldest large outputs are masked together,
in one batch, down to `target`, and stay masked, so the prefix is byte-identical again for many
turns (Anthropic's context editing clears tool results the same way). Only when a call would not
fit `limit` are the newest outputs masked too and, last, the oldest turns dropped. A masked
output leaves its placeholder, which says what it established; the full text stays in the trace.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Protocol

from coder.models.base import Message, Part, TextPart, ToolCallPart, ToolResultPart, ToolSpec
from summarizers.tokens import estimate_tokens

KEEP_TURNS = 3
"""Turns whose outputs a batch never masks: what the model is working with right now."""
THRESHOLD_CAP = 32_000
"""The default threshold for large windows. Past about this much context, reading the whole
prefix from the cache on every turn costs more than masking in batches costs in rewrites
(benchmarks/bench_context.py: a 53-call session of 115k tokens bills 1.7x less masked from
32k than unmasked, 1.2x less from 98k)."""
TARGET_SHARE = 0.25
"""A batch masks down to this share of the threshold. A rewrite of what stays is paid back
by cheaper reads within 12.5 * s / (1 - s) turns: 4 turns at a quarter, 12 at a half, often
longer than the next batch is away."""


def part_tokens(part: Part) -> int:
    if isinstance(part, TextPart):
        return estimate_tokens(part.text)
    if isinstance(part, ToolCallPart):
        return estimate_tokens(part.name + json.dumps(part.input, ensure_ascii=False))
    return estimate_tokens(part.content)


@dataclass
class ResultEntry:
    part: ToolResultPart
    placeholder: str = ""
    """What stands in for the output once masked; empty for outputs that are never masked."""
    masked: bool = False
    whole_tokens: int = field(init=False)
    saving: int = field(init=False)
    """Tokens masking saves; 0 for outputs that are never masked."""

    def __post_init__(self) -> None:
        if len(self.placeholder) >= len(self.part.content):
            self.placeholder = ""  # a placeholder is never longer than what it replaces
        self.whole_tokens = part_tokens(self.part)
        self.saving = (
            self.whole_tokens - estimate_tokens(self.placeholder) if self.placeholder else 0
        )

    @property
    def shown(self) -> ToolResultPart:
        if not self.masked:
            return self.part
        return ToolResultPart(self.part.call_id, self.placeholder, self.part.is_error)

    @property
    def tokens(self) -> int:
        return self.whole_tokens - (self.saving if self.masked else 0)


@dataclass
class Turn:
    assistant: Message
    results: list[ResultEntry] = field(default_factory=list)
    note: str = ""
    """Feedback for a reply that held no usable tool call."""

    @property
    def tokens(self) -> int:
        size = sum(part_tokens(p) for p in self.assistant.parts) + estimate_tokens(self.note)
        return size + sum(r.tokens for r in self.results)

    def messages(self) -> list[Message]:
        if not self.results:
            return [self.assistant, Message.user(self.note)]
        parts: tuple[ToolResultPart | TextPart, ...] = tuple(r.shown for r in self.results)
        if self.note:
            parts += (TextPart(self.note),)
        return [self.assistant, Message("user", parts)]


@dataclass
class Conversation:
    """One phase's turns, every output whole, with what the policy has masked or dropped."""

    briefing: str
    turns: list[Turn] = field(default_factory=list)
    dropped: int = 0
    """The oldest turns no longer sent (the last resort when masking cannot fit the limit)."""

    def add(self, turn: Turn) -> None:
        self.turns.append(turn)

    def opening(self) -> str:
        if not self.dropped:
            return self.briefing
        return (
            f"{self.briefing}\n\n({self.dropped} earlier turns of this phase were dropped to fit "
            "the context; the trace keeps them.)"
        )

    def render(self) -> list[Message]:
        messages = [Message.user(self.opening())]
        for turn in self.turns[self.dropped :]:
            messages += turn.messages()
        return messages

    def tokens(self) -> int:
        live = self.turns[self.dropped :]
        return estimate_tokens(self.opening()) + sum(t.tokens for t in live)

    def maskable(self, spare_turns: int) -> list[ResultEntry]:
        """Unmasked outputs that have a placeholder, oldest first, outside the newest turns."""
        end = max(self.dropped, len(self.turns) - spare_turns)
        return [
            r
            for t in self.turns[self.dropped : end]
            for r in t.results
            if r.saving > 0 and not r.masked
        ]


@dataclass(frozen=True)
class View:
    """What one model call is sent, and what the policy changed to make it fit."""

    messages: list[Message]
    tokens: int
    masked: list[str] = field(default_factory=list)
    """Call ids whose outputs were masked for this call (empty on most calls)."""
    dropped: int = 0
    """Turns newly dropped for this call."""


class ContextPolicy(Protocol):
    def view(self, conversation: Conversation, fixed_tokens: int, limit: int) -> View:
        """The messages to send; `fixed_tokens` is what the system prompt and tools take,
        `limit` the most the whole call may hold (it shrinks when a server names a smaller
        window)."""
        ...


@dataclass(frozen=True)
class BatchMasking:
    """Mask nothing under `threshold`; past it, mask the oldest outputs down to `target` at
    once; fit the limit whatever it takes. Masks are never lifted, so the prefix stays stable."""

    threshold: int
    target: int
    keep_turns: int = KEEP_TURNS

    @classmethod
    def for_limit(cls, limit: int, threshold: int | None = None) -> BatchMasking:
        """The policy for a call limit (the model's window less its reply): mask from the
        limit itself when it is small, from THRESHOLD_CAP when it is large, or from the
        configured threshold; down to a quarter of that."""
        start = min(limit, threshold or THRESHOLD_CAP)
        return cls(threshold=start, target=int(start * TARGET_SHARE))

    def view(self, conversation: Conversation, fixed_tokens: int, limit: int) -> View:
        threshold, target = self.threshold, self.target
        if threshold > limit:  # the limit shrank under the policy: scale it down with it
            threshold, target = limit, int(limit * TARGET_SHARE)
        size = fixed_tokens + conversation.tokens()
        masked: list[str] = []
        if size > threshold:
            batch = conversation.maskable(self.keep_turns)
            # A batch is worth its cache rewrite only when it frees a good part of the gap.
            if sum(r.saving for r in batch) >= (threshold - target) // 2:
                size = _mask(batch, size, target, masked)
        if size > limit:
            size = _mask(conversation.maskable(self.keep_turns), size, target, masked)
        if size > limit:
            size = _mask(conversation.maskable(0), size, limit, masked)
        dropped = 0
        while size > limit and conversation.dropped < len(conversation.turns):
            conversation.dropped += 1
            dropped += 1
            size = fixed_tokens + conversation.tokens()
        return View(conversation.render(), size, masked, dropped)


def _mask(entries: list[ResultEntry], size: int, goal: int, masked: list[str]) -> int:
    for entry in entries:
        if size <= goal:
            break
        entry.masked = True
        size -= entry.saving
        masked.append(entry.part.call_id)
    return size


def measure(system: str, messages: list[Message], tools: list[ToolSpec]) -> int:
    """Tokens of a whole request, counted the way the policy counts them."""
    return fixed_tokens(system, tools) + sum(
        part_tokens(part) for message in messages for part in message.parts
    )


def fixed_tokens(system: str, tools: list[ToolSpec]) -> int:
    return estimate_tokens(system) + sum(
        estimate_tokens(json.dumps(t.input_schema)) + estimate_tokens(t.description) for t in tools
    )
