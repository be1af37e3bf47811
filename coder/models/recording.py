"""A `Model` wrapper that writes a real run's replies as a scripted-model file.

Replaying that file with `script:PATH` gives the loop the same tool calls turn for turn, offline
and without a key. The file is rewritten atomically after every reply, so a run that crashes or is
interrupted still leaves a valid script of the turns it had. A reply that holds a secret the
harness holds (the API key a prompt-injected model echoes, reversed, encoded) is recorded as the
trace records it: its exact forms replaced, a string holding another form withheld.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from coder.models.base import ContextWindow, Message, Model, ModelReply, ReportsWindow, ToolSpec
from sandbox.redact import Redactor


def turn_from_reply(reply: ModelReply) -> dict[str, Any]:
    """One reply in the scripted-model turn format, with its text and the usage it reported.

    Parse errors are not kept; a reply with no usable call replays as text.
    """
    calls = [{"tool": c.name, "input": c.input} for c in reply.tool_calls]
    usage = {"input": reply.usage.input_tokens, "output": reply.usage.output_tokens}
    if not calls:
        return {"text": reply.text, "usage": usage}
    turn: dict[str, Any] = dict(calls[0]) if len(calls) == 1 else {"calls": calls}
    if reply.text:
        turn["text"] = reply.text
    turn["usage"] = usage
    return turn


def scrubbed(value: Any, redact: Redactor) -> Any:
    """A JSON-like value with every string, keys too, redacted or withheld whole."""
    if isinstance(value, str):
        return redact.whole(value)
    if isinstance(value, list):
        return [scrubbed(v, redact) for v in value]
    if isinstance(value, dict):
        return {redact.whole(str(k)): scrubbed(v, redact) for k, v in value.items()}
    return value


def write_script(path: Path, turns: Sequence[dict[str, Any]]) -> None:
    """Write `{"turns": [...]}` as YAML for a .yaml/.yml path, else JSON, replacing atomically."""
    document = {"turns": list(turns)}
    if path.suffix.lower() in (".yaml", ".yml"):
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def record_problem(path: Path) -> str | None:
    """Why `--record PATH` could not be written, in one line, or None. Checked before the run
    starts (the file is first written after the first reply, when a failure would end the run):
    PATH is not a directory, and the nearest directory on its way that exists takes a new file
    (a throwaway one is made there and removed); nothing else is created."""
    if path.is_dir():
        return f"--record {path}: is a directory; name a file"
    where = path.parent
    while not where.exists() and not where.is_symlink() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        return f"--record {path}: {where} is not a directory"
    try:
        with tempfile.TemporaryFile(dir=where, prefix=".coder-record-"):
            pass
    except OSError as exc:
        return f"--record {path}: cannot write in {where} ({exc.strerror or exc})"
    return None


class RecordingModel:
    """Passes every call to `inner` and records each reply; a `ModelError` is not recorded (a
    replay then runs out of turns at the same point and stops the same way)."""

    def __init__(self, inner: Model, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.path = path
        self.turns: list[dict[str, Any]] = []
        self.redact = Redactor()

    def context_window(self) -> ContextWindow | None:
        return self.inner.context_window() if isinstance(self.inner, ReportsWindow) else None

    def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int = 4096,
        timeout_s: float | None = None,
    ) -> ModelReply:
        reply = self.inner.complete(
            system=system,
            messages=messages,
            tools=tools,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
        )
        self.turns.append(scrubbed(turn_from_reply(reply), self.redact))
        write_script(self.path, self.turns)
        return reply
