"""The Anthropic Messages API provider (`anthropic:<model-id>`).

The neutral messages become Anthropic content blocks here and nowhere else. The stable prefix
(tool specs, then the system prompt) carries cache breakpoints, and so does the newest message,
so each turn of a tool loop reads the conversation so far from the cache.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from coder.models.base import (
    ContextWindow,
    Message,
    ModelReply,
    Part,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolSpec,
    Usage,
)
from coder.models.transport import (
    HOSTED_RETRY_STATUSES,
    Endpoint,
    RetryPolicy,
    SdkErrors,
    json_with_retries,
    public_url,
    read_reply,
)

DEFAULT_TIMEOUT_S = 300.0
CONTEXT_WINDOW = ContextWindow(200_000, "the Anthropic model's context window")
"""Every current Claude model's standard window; the API does not report it."""
_CACHE: dict[str, str] = {"type": "ephemeral"}


def anthropic_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in tools
    ]
    if specs:
        specs[-1]["cache_control"] = dict(_CACHE)
    return specs


def anthropic_system(system: str) -> list[dict[str, Any]]:
    if not system.strip():
        return []
    return [{"type": "text", "text": system, "cache_control": dict(_CACHE)}]


def _block(part: Part) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text} if part.text.strip() else None
    if isinstance(part, ToolCallPart):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": part.input}
    return {
        "type": "tool_result",
        "tool_use_id": part.call_id,
        "content": part.content,
        "is_error": part.is_error,
    }


def to_anthropic_messages(
    messages: Sequence[Message], *, cache_last: bool = True
) -> list[dict[str, Any]]:
    """Neutral messages as Anthropic wants them: same-role neighbours merged, empty text dropped,
    and in a user turn the tool results first (the API rejects text before them)."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        blocks = [b for b in (_block(p) for p in message.parts) if b is not None]
        if not blocks:
            continue
        if merged and merged[-1]["role"] == message.role:
            merged[-1]["content"].extend(blocks)
        else:
            merged.append({"role": message.role, "content": blocks})
    for entry in merged:
        if entry["role"] == "user":
            content = entry["content"]
            entry["content"] = [b for b in content if b["type"] == "tool_result"] + [
                b for b in content if b["type"] != "tool_result"
            ]
    if cache_last and merged:
        last = merged[-1]["content"]
        last[-1] = {**last[-1], "cache_control": dict(_CACHE)}
    return merged


def reply_from_anthropic(body: Mapping[str, Any], latency_s: float) -> ModelReply:
    """A Messages API response body as a neutral reply; a tool input that is not an object
    becomes a parse error rather than a call."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    errors: list[str] = []
    for block in body.get("content") or []:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use":
            name = str(block.get("name", ""))
            call_input = block.get("input")
            if isinstance(call_input, dict):
                calls.append(ToolCall(str(block.get("id", "")), name, call_input))
            else:
                errors.append(
                    f"tool call {name!r} had an input that is not a JSON object: "
                    f"{json.dumps(call_input)[:200]}"
                )
    usage = body.get("usage") or {}
    cache_read = int(usage.get("cache_read_input_tokens") or 0)
    cache_write = int(usage.get("cache_creation_input_tokens") or 0)
    return ModelReply(
        text="\n".join(t for t in texts if t),
        tool_calls=calls,
        stop_reason=str(body.get("stop_reason") or ("tool_use" if calls else "end_turn")),
        usage=Usage(
            input_tokens=int(usage.get("input_tokens") or 0) + cache_read + cache_write,
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
        ),
        latency_s=latency_s,
        parse_errors=errors,
    )


class AnthropicModel:
    """Claude through the official SDK; every failure leaves as a typed `ModelError`."""

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        cache_messages: bool = True,
    ) -> None:
        import anthropic

        self.name = f"anthropic:{model_id}"
        self.model_id = model_id
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s
        )
        self._retry = retry or RetryPolicy()
        self._cache_messages = cache_messages
        self._endpoint = Endpoint(
            label=f"Anthropic API at {public_url(str(self._client.base_url))}",
            key_env="ANTHROPIC_API_KEY",
            secret=api_key,
            timeout_s=timeout_s,
            retry_statuses=HOSTED_RETRY_STATUSES,
        )
        self._sdk = SdkErrors(
            status=anthropic.APIStatusError,
            timeout=anthropic.APITimeoutError,
            connection=anthropic.APIConnectionError,
        )

    def context_window(self) -> ContextWindow:
        return CONTEXT_WINDOW

    def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int = 4096,
        timeout_s: float | None = None,
    ) -> ModelReply:
        request: dict[str, Any] = {
            "model": self.model_id,
            "max_tokens": max_tokens,
            "messages": to_anthropic_messages(messages, cache_last=self._cache_messages),
        }
        if system_blocks := anthropic_system(system):
            request["system"] = system_blocks
        if tools:
            request["tools"] = anthropic_tools(tools)
        started = time.monotonic()
        body = json_with_retries(
            lambda timeout: self._client.messages.with_raw_response.create(
                **request, timeout=timeout
            ),
            policy=self._retry,
            endpoint=self._endpoint,
            sdk=self._sdk,
            budget_s=timeout_s,
        )
        return read_reply(
            lambda: reply_from_anthropic(body, time.monotonic() - started), self._endpoint
        )
