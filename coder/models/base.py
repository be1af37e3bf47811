"""The model seam: what the loop sends to a model and what comes back.

Providers translate these neutral types to and from their wire formats, so the loop never sees
an SDK object and a scripted model is indistinguishable from a real one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

ModelErrorKind = Literal[
    "auth",
    "rate_limited",
    "overloaded",
    "server_error",
    "bad_request",
    "timeout",
    "connection",
    "exhausted",
]


class ModelError(Exception):
    """A failure the loop cannot hand back to the model; the run stops with `model_error`."""

    def __init__(self, kind: ModelErrorKind, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ModelErrorKind = kind
        self.message = message


class ContextOverflow(ModelError):
    """The server refused a request too big for its context window, and said how big that is.

    The loop can shrink its context to `window` and ask again instead of giving up.
    """

    def __init__(self, message: str, *, window: int, prompt_tokens: int | None = None) -> None:
        super().__init__("bad_request", message)
        self.window = window
        self.prompt_tokens = prompt_tokens
        """The prompt's size in the server's own tokens, when the refusal says it."""


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


@dataclass(frozen=True)
class ContextWindow:
    """How many tokens one request (prompt and reply together) may hold, and who said so."""

    tokens: int
    source: str
    """Where the number was read, for the trace and for messages (e.g. "llama.cpp /props n_ctx")."""


class Model(Protocol):
    name: str

    def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int = 4096,
        timeout_s: float | None = None,
    ) -> ModelReply:
        """One model turn. `timeout_s` bounds the whole call, retries included (None: the
        provider's own limit), so a run's wall clock holds while it waits for a reply."""
        ...


@runtime_checkable
class ReportsWindow(Protocol):
    """A model that can tell its context window: a server that reports it, a known model."""

    def context_window(self) -> ContextWindow | None: ...
