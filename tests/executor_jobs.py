"""Bench jobs for the executor conformance tests: one that returns, one that waits for another
job's record to have streamed back, one whose process dies. Importable by worker processes
(tests/ is on their sys.path; Ray gets this module by value)."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from coder.bench.jobs import Row, run_row


@dataclass(frozen=True)
class EchoJob:
    name: str
    mode: str = "contract"

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.mode)

    def run(self) -> Row:
        return run_row(self.name, self.mode, "python", stop_reason="completed", pid=os.getpid())

    def failed(self, reason: str) -> Row:
        return run_row(self.name, self.mode, "python", error=reason)


@dataclass(frozen=True)
class WaitingJob(EchoJob):
    """Ends only once `flag` exists: the test's on_done creates it for another job's record."""

    flag: str = ""

    def run(self) -> Row:
        deadline = time.monotonic() + 120
        while not Path(self.flag).exists():
            if time.monotonic() > deadline:
                return run_row(self.name, self.mode, "python", stop_reason="never_streamed")
            time.sleep(0.05)
        return run_row(self.name, self.mode, "python", stop_reason="completed")


@dataclass(frozen=True)
class DyingJob(EchoJob):
    def run(self) -> Row:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")
