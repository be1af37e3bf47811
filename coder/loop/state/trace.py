"""The trace writer: one JSON object a line, flushed as it happens, so a crash leaves a
readable record up to the moment it happened."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox.redact import Redactor

Listener = Callable[[dict[str, Any]], None]


class TraceWriter:
    def __init__(self, path: Path, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        self._seq = 0
        self._lock = threading.Lock()
        self._dispatch = threading.RLock()
        self._listeners: list[Listener] = []
        self.redact = Redactor()
        """Applied to every line written; the session applies it to what the model sees."""
        path.parent.mkdir(parents=True, exist_ok=True)
        # A lone surrogate (from a file name, say) is written as its JSON escape, not a crash.
        self._file = path.open("a", encoding="utf-8", errors="backslashreplace")

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def emit(self, type_: str, **payload: Any) -> dict[str, Any]:
        with self._lock:
            self._seq += 1
            event = {"ts": round(time.time(), 3), "run_id": self.run_id, "seq": self._seq}
            event["type"] = type_
            event.update(payload)
            line = self.redact.record(json.dumps(event, default=str, ensure_ascii=False))
            unwritten: OSError | None = None
            try:
                self._file.write(line + "\n")
                self._file.flush()
            except OSError as exc:  # a full disk: the person still sees it, then the run ends
                unwritten = exc
        with self._dispatch:
            self._tell(event)
        if unwritten is not None:
            raise unwritten
        return event

    def _tell(self, event: dict[str, Any]) -> None:
        """Listeners hear one event at a time, whichever thread emits it: steps at once
        (`--jobs`) emit side by side, and the journal must not save over itself."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception as exc:  # a display must never end a run
                if listener not in self._listeners:
                    continue
                self._listeners.remove(listener)
                self.emit(
                    "observation",
                    tool=None,
                    status="error",
                    text=f"progress display failed: {exc!r}",
                )

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def read_trace(path: Path) -> list[dict[str, Any]]:
    """Every complete event; a torn last line (a crash mid-write) or a line that is not JSON
    is skipped, not fatal, and bytes that are not UTF-8 are read as U+FFFD."""
    events = []
    for line in path.read_bytes().decode("utf-8", errors="replace").split("\n"):
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
