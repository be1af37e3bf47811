"""Bounded capture of a command's output: the beginning and the end, and a count of the rest.

A test run that fails usually says why at the top (collection errors) or at the bottom (the
summary); the middle of a flood is what can go. Memory stays at the cap however much the
command writes.
"""

from __future__ import annotations

DEFAULT_OUTPUT_CAP = 1 << 20  # bytes kept, head and tail together


class CappedOutput:
    def __init__(self, cap: int = DEFAULT_OUTPUT_CAP) -> None:
        if cap < 2:
            raise ValueError("the output cap must be at least 2 bytes")
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        if len(chunk) >= self._tail_cap:
            self._tail = bytearray(chunk[-self._tail_cap :])
            return
        self._tail += chunk
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            del self._tail[:excess]  # CPython trims a bytearray's front without copying

    @property
    def dropped(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        if not self.dropped:
            return bytes(self._head + self._tail).decode("utf-8", errors="replace")
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        return f"{head}\n[... {self.dropped} bytes of output dropped ...]\n{tail}"
