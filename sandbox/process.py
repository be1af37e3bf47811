"""Run one process to completion under a wall clock, without ever blocking on its output.

The caller's thread multiplexes the output pipe and a pidfd with a selector: a flood is read
as fast as it comes (into a bounded buffer), and the process's exit is noticed even while
something it left behind still holds the pipe open. The process is never reaped before its
group is killed, so the group id cannot have been reused by then.

Once the command has exited its process group (and pids cgroup) is always SIGKILLed, also
when the pipe closed in time: a leftover that redirected its output would otherwise go on
changing files after the verifier ran. Without a pids cgroup that kill misses a leftover
that called setsid(); under bwrap the PID namespace catches those, and in `none` mode the
command then runs under sandbox/reaper.py (`sweeper=True`), a subreaper that kills every
descendant when the command ends or on SIGTERM, which is how the harness asks it to stop
(then SIGKILL after REAPER_GRACE_S). What remains open in `none` mode: a process that is
not a descendant (started through a daemon: systemd-run, at, a D-Bus service), and, if the
harness is SIGKILLed without a cgroup, the moment before PR_SET_PDEATHSIG reaches the reaper.
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

from sandbox.cgroups import CommandCgroup
from sandbox.growth import TICK_S, Watch
from sandbox.output import CappedOutput

TIMEOUT_EXIT_CODE = 124  # what timeout(1) reports; the result also says timed_out
STRAGGLER_GRACE_S = 0.5  # how long the pipe may stay open once the command exited (and its
# leftovers were killed): only a process outside its group and cgroup can hold it that long
KILL_DRAIN_S = 5.0  # how long to wait for the pipe to close once everything was killed
REAPER_GRACE_S = 2.0  # how long a sweeping leader (sandbox/reaper.py) gets after SIGTERM
_CHUNK = 1 << 16


@dataclass(frozen=True)
class ProcessOutcome:
    exit_code: int
    duration_s: float
    output: str
    timed_out: bool
    killed: bool
    dropped_bytes: int
    outgrown: bool = False  # killed by the growth watcher
    cgroup_bound: str | None = None  # memory | pids, from the cgroup's counters


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    output_cap: int,
    preexec_fn: Callable[[], None] | None = None,
    cgroup: CommandCgroup | None = None,
    sweeper: bool = False,
    growth: Watch | None = None,
    pass_fds: Sequence[int] = (),
) -> ProcessOutcome:
    """`sweeper`: the process kills its descendants on SIGTERM (sandbox/reaper.py), so a
    kill asks it first and SIGKILLs the group only after it exited or REAPER_GRACE_S.
    `growth`: asked every TICK_S; when it says the worktree outgrew its bound, everything
    is killed as on a timeout."""
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
            pass_fds=tuple(pass_fds),
            preexec_fn=preexec_fn,
        )
    except OSError as error:
        if cgroup is not None:
            cgroup.remove()
        message = f"could not start the command: {error.strerror or error}"
        return ProcessOutcome(127, time.monotonic() - start, message, False, False, 0)
    cgroup_bound = None
    assert proc.stdout is not None
    watch = _ExitWatch(proc.pid)
    kill = _Killer(proc.pid, cgroup, sweeper)
    try:
        timed_out, outgrown = _pump(proc, watch, capture, start + timeout_s, kill, growth)
    finally:  # Ctrl-C, a bug or a normal end: nothing the command started may outlive it
        kill()
        watch.close()
        proc.stdout.close()
        returncode = proc.wait()
        if cgroup is not None:
            cgroup_bound = cgroup.bound_hit()
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
        killed=timed_out or outgrown,  # leftovers after an exit die without counting
        dropped_bytes=capture.dropped,
        outgrown=outgrown,
        cgroup_bound=cgroup_bound,
    )


def _pump(
    proc: subprocess.Popen[bytes],
    watch: _ExitWatch,
    capture: CappedOutput,
    deadline: float,
    kill: _Killer,
    growth: Watch | None,
) -> tuple[bool, bool]:
    """Read until the pipe closes and the command has exited. The moment the command exits,
    what it left running is killed (as the PID namespace does under bwrap); on the deadline,
    or when the worktree outgrew its bound, everything is. Then the pipe gets a bounded time
    to drain. Returns (timed out, outgrown)."""
    assert proc.stdout is not None
    out_fd = proc.stdout.fileno()
    os.set_blocking(out_fd, False)
    selector = selectors.DefaultSelector()
    selector.register(out_fd, selectors.EVENT_READ, "out")
    if watch.fd is not None:
        selector.register(watch.fd, selectors.EVENT_READ, "exit")
    timed_out = outgrown = False
    pipe_open = True
    give_up_at = math.inf  # once everything was killed: stop waiting for the pipe then
    try:
        while pipe_open or not watch.exited():
            now = time.monotonic()
            if give_up_at < math.inf:
                if now >= give_up_at:
                    break  # something outside the group (and cgroup) still holds the pipe
                wake = give_up_at
            elif watch.exited():
                kill()
                give_up_at = now + STRAGGLER_GRACE_S
                continue
            elif now >= deadline:
                timed_out = True
                kill()
                give_up_at = now + KILL_DRAIN_S
                continue
            elif growth is not None and growth.exceeded():
                outgrown = True
                kill()
                give_up_at = now + KILL_DRAIN_S
                continue
            else:
                wake = deadline if growth is None else min(deadline, now + TICK_S)
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
    return timed_out, outgrown


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, _CHUNK)
    except BlockingIOError:
        return None


class _Killer:
    """SIGKILL for the command's process group and cgroup, after asking a sweeping leader
    to clean up (only while it still runs: a leader that exited has swept already)."""

    def __init__(self, pid: int, cgroup: CommandCgroup | None, sweeper: bool) -> None:
        self.pid = pid
        self.cgroup = cgroup
        self.sweeper = sweeper

    def __call__(self) -> None:
        if self.sweeper and not _has_exited(self.pid):
            try:
                os.kill(self.pid, signal.SIGTERM)
            except OSError:
                pass
            deadline = time.monotonic() + REAPER_GRACE_S
            while not _has_exited(self.pid) and time.monotonic() < deadline:
                time.sleep(0.002)
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.cgroup is not None:
            self.cgroup.kill_all()


def _has_exited(pid: int) -> bool:
    """Without reaping it, so its pid and process group id stay ours."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


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
