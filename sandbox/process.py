"""Run one process to completion under a wall clock, without ever blocking on its output.

The caller's thread multiplexes the output pipe and a pidfd with a selector: a flood is read
as fast as it comes (into a bounded buffer), and the process's exit is noticed even while
something it left behind still holds the pipe open. The process is never reaped before its
group is killed, so the group id cannot have been reused by then.
"""

from __future__ import annotations

import math
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.limits import PidsCgroup
from sandbox.output import CappedOutput

TIMEOUT_EXIT_CODE = 124  # what timeout(1) reports; the result also says timed_out
STRAGGLER_GRACE_S = 0.5  # how long leftovers may keep the pipe open after the command exits
KILL_DRAIN_S = 5.0  # how long to wait for the pipe to close once everything was killed
_CHUNK = 1 << 16


@dataclass(frozen=True)
class ProcessOutcome:
    exit_code: int
    duration_s: float
    output: str
    timed_out: bool
    killed: bool
    dropped_bytes: int


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    output_cap: int,
    preexec_fn: Callable[[], None] | None = None,
    cgroup: PidsCgroup | None = None,
) -> ProcessOutcome:
    start = time.monotonic()
    capture = CappedOutput(output_cap)
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            preexec_fn=preexec_fn,
        )
    except OSError as error:
        if cgroup is not None:
            cgroup.remove()
        message = f"could not start the command: {error.strerror or error}"
        return ProcessOutcome(127, time.monotonic() - start, message, False, False, 0)
    assert proc.stdout is not None
    watch = _ExitWatch(proc.pid)
    try:
        timed_out, killed = _pump(proc, watch, capture, start + timeout_s, cgroup)
    except BaseException:  # Ctrl-C or a bug: nothing the command started may outlive us
        _kill_group(proc.pid, cgroup)
        raise
    finally:
        watch.close()
        proc.stdout.close()
        returncode = proc.wait()
        if cgroup is not None:
            cgroup.remove()
    if timed_out:
        exit_code = TIMEOUT_EXIT_CODE
    elif returncode < 0:
        exit_code = 128 - returncode  # the shell's convention for "killed by signal N"
    else:
        exit_code = returncode
    return ProcessOutcome(
        exit_code=exit_code,
        duration_s=time.monotonic() - start,
        output=capture.text(),
        timed_out=timed_out,
        killed=killed,
        dropped_bytes=capture.dropped,
    )


def _pump(
    proc: subprocess.Popen[bytes],
    watch: _ExitWatch,
    capture: CappedOutput,
    deadline: float,
    cgroup: PidsCgroup | None,
) -> tuple[bool, bool]:
    """Read until the pipe closes and the command has exited; kill on the deadline, or when
    leftovers still hold the pipe a grace period after the command exited."""
    assert proc.stdout is not None
    out_fd = proc.stdout.fileno()
    os.set_blocking(out_fd, False)
    selector = selectors.DefaultSelector()
    selector.register(out_fd, selectors.EVENT_READ, "out")
    if watch.fd is not None:
        selector.register(watch.fd, selectors.EVENT_READ, "exit")
    timed_out = killed = False
    pipe_open = True
    give_up_at = math.inf  # once everything was killed: stop waiting for the pipe then
    try:
        while pipe_open or not watch.exited():
            now = time.monotonic()
            if killed:
                if now >= give_up_at:
                    break  # something that left the process group still holds the pipe
                wake = give_up_at
            else:
                exited = watch.exited()
                limit = min(deadline, watch.exit_seen + STRAGGLER_GRACE_S) if exited else deadline
                if now >= limit:
                    timed_out, killed = not exited, True
                    _kill_group(proc.pid, cgroup)
                    give_up_at = now + KILL_DRAIN_S
                    continue
                wake = limit
            if watch.fd is None:
                wake = min(wake, now + 0.01)  # no pidfd: poll for the exit
            for key, _ in selector.select(max(0.0, wake - now)):
                if key.data == "exit":
                    selector.unregister(key.fd)
                    watch.note_exit()
                    continue
                chunk = _read(out_fd)
                if chunk:
                    capture.feed(chunk)
                elif chunk is not None:
                    selector.unregister(out_fd)
                    pipe_open = False
    finally:
        selector.close()
    return timed_out, killed


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, _CHUNK)
    except BlockingIOError:
        return None


def _kill_group(pgid: int, cgroup: PidsCgroup | None) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if cgroup is not None:
        cgroup.kill_all()


class _ExitWatch:
    """Notices the command's exit without reaping it (pidfd, else waitid with WNOWAIT)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.exit_seen = 0.0
        self._exited = False
        try:
            self.fd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.fd = None

    def note_exit(self) -> None:
        if not self._exited:
            self._exited = True
            self.exit_seen = time.monotonic()

    def exited(self) -> bool:
        if not self._exited and self.fd is None:
            try:
                gone = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                gone = None
                self.note_exit()  # reaped elsewhere: treat as gone
            if gone is not None:
                self.note_exit()
        return self._exited

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
