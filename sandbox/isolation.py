"""What `--sandbox none` can still do so that no command reads the model's key.

A command running on the host could read the key from `/proc/<pid>/environ` of the harness
or of the shell that started it. Two defences, both without bubblewrap:
- the harness makes itself non-dumpable (prctl PR_SET_DUMPABLE 0): its /proc files are then
  root's, and only a process with CAP_SYS_PTRACE may read them;
- where the host allows a PID namespace (root, or unprivileged user namespaces), each
  command runs in a fresh one with its own /proc (`unshare --pid --fork --mount-proc`), where
  no other process exists; as root, capabilities are dropped too (`setpriv`), so the command
  cannot mount the host's /proc back or ptrace its way out. The namespace's first process is
  a shell that waits for the command, so the command is never PID 1 (which ignores signals
  it has no handler for: `kill -9 $$` must work), and everything it leaves dies with it.
Where neither namespace works, the run says so.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from functools import cache

PR_SET_DUMPABLE = 4
_INIT = ["/bin/sh", "-c", '"$@"; exit $?', "coder-init"]


def make_undumpable() -> None:
    """Keep other processes of this user out of the harness's memory and environment."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


@cache
def pid_namespace_prefix() -> tuple[str, ...] | None:
    """The argv prefix that runs a command in its own PID namespace, or None where the
    host allows none (probed once)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    prefix = [unshare, "--pid", "--fork", "--mount-proc", "--kill-child"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            return None
        prefix += [
            "--",
            setpriv,
            "--bounding-set=-all",
            "--inh-caps=-all",
            "--ambient-caps=-all",
            "--no-new-privs",
        ]
    else:
        prefix[1:1] = ["--user", "--map-current-user"]
    prefix += ["--", *_INIT]
    try:
        done = subprocess.run(
            [*prefix, "true"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return tuple(prefix) if done.returncode == 0 else None
