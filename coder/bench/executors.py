"""Where bench jobs run: the `Executor` protocol, the local process pool, and the choice.

Both executors stream each record to `on_done` as its job ends, return the records in job
order, and turn a job whose process died into a reported record instead of losing it (or the
rest of the bench). The local pool forks every job from a server process that has already
imported the harness, so a job costs a fork, not an interpreter start, and dies alone.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from coder.bench.jobs import BenchJob, Executor, ExecutorUnavailable, Row, ordered

__all__ = [
    "Executor",
    "ExecutorUnavailable",
    "InProcess",
    "ProcessPool",
    "make_executor",
    "ordered",
]
_PRELOAD = ["coder.bench.runner", "coder.bench.swebench_job", "coder.loop.runner"]


class ProcessPool:
    name = "pool"

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)

    def run(self, jobs: Sequence[BenchJob], on_done: Callable[[Row], None]) -> list[Row]:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        queue = list(jobs)
        running: dict[Connection, tuple[BaseProcess, BenchJob]] = {}
        rows: list[Row] = []
        try:
            while queue or running:
                while queue and len(running) < self.workers:
                    job = queue.pop(0)
                    reader, writer = context.Pipe(duplex=False)
                    child = context.Process(target=_child, args=(job, writer), daemon=True)
                    child.start()
                    writer.close()
                    running[reader] = (child, job)
                for ready in wait(list(running)):
                    process, done = running.pop(ready)  # type: ignore[call-overload]
                    row = _receive(ready, process, done)  # type: ignore[arg-type]
                    rows.append(row)
                    on_done(row)
        finally:
            for process, _ in running.values():
                process.terminate()
                process.join()
        return ordered(rows, jobs)

    def close(self) -> None:
        return None


def _child(job: BenchJob, writer: Connection) -> None:
    try:
        row = job.run()
    except BaseException as exc:  # a job must not raise; if one does, say what it raised
        row = job.failed(f"{type(exc).__name__}: {exc}")
    row["node"] = socket.gethostname()
    writer.send(row)
    writer.close()


def _receive(reader: Connection, process: BaseProcess, job: BenchJob) -> Row:
    try:
        row: Row = reader.recv()
    except EOFError:
        process.join()
        row = job.failed(f"the worker process died ({_exit_how(process.exitcode)})")
        row["node"] = socket.gethostname()
    finally:
        reader.close()
    process.join()
    return row


def _exit_how(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class InProcess:
    """Jobs one after another in this process: for attempts inside a bench job, whose own
    process (a pool worker, a Ray task) may not start processes of its own."""

    name = "in-process"

    def run(self, jobs: Sequence[BenchJob], on_done: Callable[[Row], None]) -> list[Row]:
        rows: list[Row] = []
        for job in jobs:
            try:
                row = job.run()
            except Exception as exc:  # a job must not raise; if one does, say what it raised
                row = job.failed(f"{type(exc).__name__}: {exc}")
            rows.append(row)
            on_done(row)
        return rows

    def close(self) -> None:
        return None


LOCAL_RAY = "local"
"""`--ray` without an address: start a Ray instance on this machine for the bench."""


def make_executor(ray: str | None, workers: int) -> Executor:
    """The local pool, or Ray at `ray` (an address, or LOCAL_RAY); ExecutorUnavailable if not."""
    if ray is None:
        return ProcessPool(workers)
    from coder.bench.ray_executor import RayExecutor

    return RayExecutor(None if ray == LOCAL_RAY else ray, workers)
