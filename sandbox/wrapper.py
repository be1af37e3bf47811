"""The run's sandbox as every part of the run sees it: the confinement, the environment every
command gets (the variables the user passes), and the live display told when each command
starts and ends."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sandbox.confine import CommandResult, Sandbox
from sandbox.environment import NamedEnv


class EnvSandbox:
    """A sandbox whose every command also gets `env` (a call's own env wins on conflicts), and
    that tells `watchers` when each command starts and ends (the live progress line shows the
    command running and its elapsed time; these notes are for display and never traced)."""

    def __init__(
        self,
        inner: Sandbox,
        env: Mapping[str, str],
        watchers: Sequence[Callable[[dict[str, Any]], None]] = (),
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.root = inner.root
        self.view_root = inner.view_root
        self.env = dict(env)
        self.explicit = env.explicit if isinstance(env, NamedEnv) else frozenset()
        self.watchers = list(watchers)

    def run(
        self, command: str, *, cwd: Path, timeout_s: float, env: Mapping[str, str] | None = None
    ) -> CommandResult:
        merged = NamedEnv({**self.env, **(env or {})}, explicit=self.explicit)
        self._tell({"type": "command_started", "command": command, "started": time.monotonic()})
        try:
            return self.inner.run(command, cwd=cwd, timeout_s=timeout_s, env=merged)
        finally:
            self._tell({"type": "command_finished", "command": command})

    def _tell(self, note: dict[str, Any]) -> None:
        for watcher in self.watchers:
            try:
                watcher(note)
            except Exception:  # a display must never end a run
                self.watchers.remove(watcher)
