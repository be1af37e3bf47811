"""The parent of an unconfined command: when the command ends, nothing it started lives on.

Run as a script (`python -I -S reaper.py ARGV...`) between the harness and the command in
`none` mode. It makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so everything
the command leaves behind, even a process that called setsid() and redirected its output,
is re-parented to it instead of to init; once the command exits it SIGKILLs and reaps those
until none is left, then exits with the command's status (128+N when a signal N ended it).
SIGTERM, which the harness sends on a timeout or when it is interrupted, does the same
sweep at once; so does the harness's death (PR_SET_PDEATHSIG). Under bwrap the PID
namespace does this job and the reaper is not used. Standard library only: `-I -S` keeps
its start-up to a few milliseconds.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SWEEP_LIMIT_S = 5.0
_PYTHON_IGNORES = (signal.SIGPIPE, signal.SIGXFSZ)


def children() -> list[int]:
    """Our direct children (living or zombie), from /proc."""
    me = str(os.getpid()).encode()
    found: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and fields[1] == me:
            found.append(int(name))
    return found


def sweep() -> None:
    """Kill and reap every descendant: killing a child re-parents its children to us."""
    deadline = time.monotonic() + SWEEP_LIMIT_S
    while time.monotonic() < deadline:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return  # no children left at all
        for pid in children():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)


def _on_term(_signum: int, _frame: object) -> None:
    sweep()
    os._exit(128 + signal.SIGTERM)


def main(argv: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    signal.signal(signal.SIGTERM, _on_term)
    try:
        # Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across exec:
        # `yes | head` must end the way it does in a shell.
        pid = os.posix_spawnp(argv[0], argv, os.environ, setsigdef=_PYTHON_IGNORES)
    except OSError as error:
        print(f"{argv[0]}: {error.strerror or error}", file=sys.stderr)
        return 127
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 0
            break
    code = os.waitstatus_to_exitcode(status)
    sweep()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))
