"""The model seam: what the loop sends to a model and what comes back.

Providers translate these neutral types to and from their wire formats, so the loop never sees
an SDK object and a scripted model is indistinguishable from a real one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

ModelErrorKind = Literal[
    "auth", "rate_limited", "overloaded", "bad_request", "timeout", "connection", "exhausted"
]


class ModelError(Exception):
    """A failure the loop cannot hand back to the model; the run stops with `model_error`."""

    def __init__(self, kind: ModelErrorKind, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ModelErrorKind = kind
        self.message = message


class ConfigError(Exception):
    """A bad model spec, a missing key or an invalid script file: a usage error (CLI exit 2).

    The message is one line for the person and never contains a secret.
    """


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ToolCallPart:
    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolResultPart:
    call_id: str
    content: str
    is_error: bool = False


Part = TextPart | ToolCallPart | ToolResultPart


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant"]
    parts: tuple[Part, ...]

    @staticmethod
    def user(text: str) -> Message:
        return Message("user", (TextPart(text),))


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token counts of one call, the same way for every provider.

    `input_tokens` counts the whole prompt, cached or not, so budgets do not shrink when caching
    works; the cache figures are the parts of it read from and written to the cache.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True)
class ModelReply:
    """One model turn, provider-neutral.

    `stop_reason` is one of `tool_use`, `end_turn`, `max_tokens`, `refusal`, or the provider's
    own word when none of these fits.
    """

    text: str
    tool_calls: list[ToolCall]
    stop_reason: str
    usage: Usage
    latency_s: float
    parse_errors: list[str] = field(default_factory=list)
    """Tool calls the provider saw in the reply but could not repair; shown to the model."""


class Model(Protocol):
    name: str

    def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int = 4096,
    ) -> ModelReply: ...
