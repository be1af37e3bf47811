"""One attempt as a job the bench's executors can run (`coder.bench.jobs.BenchJob`): a small
picklable value that runs a whole `coder run` wherever it is put (a forked process, a Ray
node) and returns a record of how it ended.

The attempt writes its own run directory; the record only says where it is and how it ended,
so a run whose record is lost (its process killed) is still read from its directory.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from coder.bench.jobs import Row
from coder.loop.runner import RunOptions


@dataclass(frozen=True)
class AttemptJob:
    attempt: int
    options: RunOptions
    """The attempt's own run: its model, run id, branch and run directory; nothing in it may
    be a callable (it crosses a process boundary)."""
    own_process: bool = True
    """Runs in a process of its own (the local pool), which SIGTERM may end; False on a Ray
    worker, which outlives the task and is stopped by Ray's own cancel (a KeyboardInterrupt)."""

    @property
    def key(self) -> tuple[str, str]:
        return (label(self.attempt), self.options.mode)

    def run(self) -> Row:
        from coder.loop.runner import run_task
        from coder.loop.state.usage import UsageError

        if self.own_process:
            _sigterm_ends_the_run()
        try:
            outcome = run_task(self.options)
        except UsageError as exc:
            return self._row(usage=str(exc))
        except Exception as exc:  # one attempt's crash must not lose the others
            return self._row(error=f"{type(exc).__name__}: {exc}")
        result = outcome.result
        return self._row(status=result.status, stop_reason=result.stop_reason)

    def failed(self, reason: str) -> Row:
        return self._row(error=reason)

    def _row(self, **fields: Any) -> Row:
        return {
            "fixture": label(self.attempt),
            "mode": self.options.mode,
            "attempt": self.attempt,
            "run_dir": str(self.options.out_dir),
            "status": "not_run",
            "stop_reason": "interrupted",
            "error": None,
            "usage": None,
            **fields,
        }


def label(attempt: int) -> str:
    return f"a{attempt}"


def attempt_options(options: RunOptions, attempt: int, run_id: str, run_dir: Path) -> RunOptions:
    """Attempt `attempt`'s own run: `coder/<run-id>/a<i>` in `<run-dir>/a<i>/`, without
    anything that talks to a person (no terminal reaches an attempt's process)."""
    return replace(
        options,
        run_id=f"{run_id}-{label(attempt)}",
        branch=f"coder/{run_id}/{label(attempt)}",
        out_dir=run_dir / label(attempt),
        apply=False,
        approve=False,
        reviewer=None,
        ask=None,
        warn=None,
        listeners=[],
        context_policy=None,
    )


def _sigterm_ends_the_run() -> None:
    """An attempt stopped early (enough agree, Ctrl-C) gets SIGTERM: it ends as `coder run`
    does on SIGTERM, its outputs written and its worktree removed."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: object) -> None:
        from coder.loop.state.state import Terminated

        raise Terminated

    signal.signal(signal.SIGTERM, handler)
