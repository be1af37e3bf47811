"""The OpenAI-compatible chat completions provider (`openai:<model-id>`).

Written for local servers (vLLM, llama.cpp, Ollama) as much as for OpenAI: the reply is read as
plain JSON rather than through the SDK's types, so malformed tool calls reach `repair` intact,
and the request keeps to the oldest common subset (`max_tokens`, strict role alternation, a
string `content` in every message, an explicit `tool_choice`).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from coder.models.base import (
    ContextWindow,
    Message,
    ModelReply,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
)
from coder.models.discovery import discover_window
from coder.models.repair import RepairError, call_from_object, calls_in_text, strip_reasoning
from coder.models.transport import (
    HOSTED_RETRY_STATUSES,
    TRANSIENT_STATUSES,
    Endpoint,
    RetryPolicy,
    SdkErrors,
    json_with_retries,
    public_url,
    read_reply,
)

DEFAULT_TIMEOUT_S = 300.0
LOCAL_TIMEOUT_S = 1800.0
"""A local server on a busy CPU can take minutes for one reply; the run's --timeout bounds it."""
NO_KEY = "not-needed"
_STOP_REASONS = {
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in tools
    ]


def _result_message(part: ToolResultPart) -> dict[str, Any]:
    content = f"ERROR: {part.content}" if part.is_error else part.content
    return {"role": "tool", "tool_call_id": part.call_id, "content": content}


def to_openai_messages(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Neutral messages as chat messages: tool results become `tool` messages right after the
    assistant turn that made the calls, and same-role neighbours are merged, because many local
    chat templates insist on strict alternation."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        texts = [p.text for p in message.parts if isinstance(p, TextPart) and p.text.strip()]
        if message.role == "assistant":
            calls = [
                {
                    "id": p.id,
                    "type": "function",
                    "function": {"name": p.name, "arguments": json.dumps(p.input)},
                }
                for p in message.parts
                if isinstance(p, ToolCallPart)
            ]
            _append(out, "assistant", "\n\n".join(texts), calls)
            continue
        out.extend(_result_message(p) for p in message.parts if isinstance(p, ToolResultPart))
        if texts:
            _append(out, "user", "\n\n".join(texts), [])
    return out


def _append(out: list[dict[str, Any]], role: str, text: str, calls: list[dict[str, Any]]) -> None:
    previous = out[-1] if out else None
    if previous is not None and previous["role"] == role:
        if text:
            previous["content"] = "\n\n".join(c for c in (previous.get("content"), text) if c)
        if calls:
            previous.setdefault("tool_calls", []).extend(calls)
        return
    if not text and not calls:
        return
    # Not None: llama-cpp-python refuses a null content with an HTTP 500, and "" means the same.
    entry: dict[str, Any] = {"role": role, "content": text}
    if calls:
        entry["tool_calls"] = calls
    out.append(entry)


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers send content parts
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def reply_from_openai(
    body: Mapping[str, Any], tools: Sequence[ToolSpec], new_id: Callable[[], str], latency_s: float
) -> ModelReply:
    """A chat completion as a neutral reply, with tool calls repaired or reported.

    `new_id()` names calls that came without an id (text calls, some local servers).
    """
    choices = body.get("choices") or [{}]
    choice = choices[0] if isinstance(choices[0], Mapping) else {}
    message = choice.get("message") or {}
    text = strip_reasoning(_content_text(message.get("content")))
    raw_calls = list(message.get("tool_calls") or [])
    if not raw_calls and isinstance(message.get("function_call"), Mapping):
        # The legacy field; servers that fill both mirror the first tool call in it.
        raw_calls.append({"function": message["function_call"]})
    calls: list[ToolCall] = []
    errors: list[str] = []
    for raw in raw_calls:
        if not isinstance(raw, Mapping):
            errors.append(f"a tool call that is not a JSON object: {str(raw)[:200]}")
            continue
        try:
            repaired = call_from_object(raw, tools)
        except RepairError as err:
            errors.append(str(err))
            continue
        given = raw.get("id")
        call_id = given if isinstance(given, str) and given else new_id()
        calls.append(ToolCall(call_id, repaired.name, repaired.input))
    if not raw_calls and text:
        found = calls_in_text(text, tools)
        calls.extend(ToolCall(new_id(), c.name, c.input) for c in found.calls)
        errors.extend(found.errors)
        text = found.text
    finish = str(choice.get("finish_reason") or "")
    stop_reason = "tool_use" if calls else _STOP_REASONS.get(finish, finish or "end_turn")
    usage = body.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    return ModelReply(
        text=text,
        tool_calls=calls,
        stop_reason=stop_reason,
        usage=Usage(
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            cache_read_tokens=int(details.get("cached_tokens") or 0),
        ),
        latency_s=latency_s,
        parse_errors=errors,
    )


class OpenAIModel:
    """Any OpenAI-compatible chat completions server through the official SDK."""

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        import openai

        if timeout_s is None:
            timeout_s = LOCAL_TIMEOUT_S if base_url else DEFAULT_TIMEOUT_S
        self.name = f"openai:{model_id}"
        self.model_id = model_id
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s
        )
        self._retry = retry or RetryPolicy()
        self.base_url = public_url(str(self._client.base_url)).rstrip("/")
        self._api_key = api_key
        self._endpoint = Endpoint(
            label=f"OpenAI-compatible server at {self.base_url}",
            key_env="OPENAI_API_KEY",
            secret="" if api_key == NO_KEY else api_key,
            timeout_s=timeout_s,
            not_found_hint=_v1_hint(self.base_url),
            retry_statuses=TRANSIENT_STATUSES if base_url else HOSTED_RETRY_STATUSES,
        )
        self._probe = base_url is not None
        self._window: ContextWindow | None = None
        self._sdk = SdkErrors(
            status=openai.APIStatusError,
            timeout=openai.APITimeoutError,
            connection=openai.APIConnectionError,
        )
        self._ids = itertools.count(1)

    def _new_id(self) -> str:
        return f"call_local_{next(self._ids)}"

    def context_window(self) -> ContextWindow | None:
        """What the server says its context window is; asked once, never fatal. The hosted API
        (no base URL given) reports none, so it is not asked."""
        if self._probe:
            self._probe = False
            key = "" if self._api_key == NO_KEY else self._api_key
            self._window = discover_window(str(self._client.base_url), self.model_id, key)
        return self._window

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
            "messages": to_openai_messages(system, messages),
        }
        if tools:
            request["tools"] = openai_tools(tools)
            # OpenAI's own default, but llama-cpp-python drops the tools without it.
            request["tool_choice"] = "auto"
        started = time.monotonic()
        body = json_with_retries(
            lambda timeout: self._client.chat.completions.with_raw_response.create(
                **request, timeout=timeout
            ),
            policy=self._retry,
            endpoint=self._endpoint,
            sdk=self._sdk,
            budget_s=timeout_s,
        )
        return read_reply(
            lambda: reply_from_openai(body, tools, self._new_id, time.monotonic() - started),
            self._endpoint,
        )


def _v1_hint(base_url: str) -> str:
    """OpenAI-compatible servers (vLLM, llama.cpp, Ollama) serve the API under /v1."""
    if base_url.endswith("/v1"):
        return ""
    return f"did you mean {base_url}/v1? (OpenAI-compatible servers serve the API under /v1)"
