"""Bench jobs as Ray tasks: one task per (fixture or instance, mode), on whichever node has a CPU.

Each task makes its own temporary repository and worktree on the node that runs it, so the
nodes share nothing but the fixture or repository paths (the same path on every node). A task
whose worker or node dies comes back as a record saying so; the others go on. Ray is optional
(`pip install 'coder-contracts[ray]'`) and imported only here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from coder.bench.jobs import BenchJob, ExecutorUnavailable, Row, ordered

INSTALL_HINT = "pip install 'coder-contracts[ray]'"
_LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Set to 0, Ray's node address is 127.0.0.1: a local instance is not reachable from outside."""


def import_ray(local: bool) -> Any:
    if local:
        os.environ.setdefault(_LOOPBACK_ONLY, "0")
    try:
        import ray
    except ImportError:
        raise ExecutorUnavailable(
            f"--ray needs Ray, which is not installed: {INSTALL_HINT}"
        ) from None
    return ray


class RayExecutor:
    name = "ray"

    def __init__(self, address: str | None, workers: int) -> None:
        self._ray = import_ray(local=address is None)
        self._started = False
        if self._ray.is_initialized():
            return
        try:
            if address is None:
                self._ray.init(
                    num_cpus=max(1, workers),
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level="WARNING",
                )
            else:
                self._ray.init(address=address, log_to_driver=False, logging_level="WARNING")
        except Exception as exc:  # ConnectionError, ValueError, RuntimeError, ... from ray.init
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ExecutorUnavailable(f"could not start or reach {where}: {first}") from None
        self._started = True

    def run(self, jobs: Sequence[BenchJob], on_done: Callable[[Row], None]) -> list[Row]:
        ray = self._ray
        task = ray.remote(num_cpus=1, max_retries=0)(run_on_node)
        pending = {task.remote(job): job for job in jobs}
        rows: list[Row] = []
        waiting = list(pending)
        try:
            while waiting:
                ready, waiting = ray.wait(waiting, num_returns=1)
                for ref in ready:
                    job = pending.pop(ref)
                    try:
                        row: Row = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        row = job.failed(f"the Ray task died: {_first_line(exc)}")
                        row["node"] = "unknown"
                    rows.append(row)
                    on_done(row)
        finally:
            for ref in waiting:  # `on_done` stopped the run (enough agree, Ctrl-C): the rest end
                ray.cancel(ref)
        return ordered(rows, jobs)

    def close(self) -> None:
        if self._started:
            self._started = False
            self._ray.shutdown()


def run_on_node(job: BenchJob) -> Row:
    """The task body: the job's record, stamped with the node that ran it."""
    import ray

    row = job.run()
    row["node"] = ray.util.get_node_ip_address()
    return row


def _first_line(exc: BaseException) -> str:
    """What went wrong in one line; for a task that raised, what it raised (RayTaskError.cause)."""
    cause = getattr(exc, "cause", None)
    shown = cause if isinstance(cause, BaseException) else exc
    lines = [line.strip() for line in str(shown).splitlines() if line.strip()]
    return f"{type(shown).__name__}: {lines[0]}" if lines else type(shown).__name__
