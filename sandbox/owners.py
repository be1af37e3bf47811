"""Owner files: which process a directory the harness made belongs to, so that what a killed
harness left (SIGKILL runs no cleanup) is told from what a live one is using.

An owner file records the pid, that process's start time (a reused pid is not the owner) and
the host (on a shared file system another machine's process is not ours to judge).
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path


def write_owner(owner: Path, **extra: object) -> None:
    """Record this process as the owner, with `extra` facts beside it. Written whole at once:
    a file read half written looked like a gone owner, and another run starting beside this
    one (attempts side by side) pruned this run's new worktree."""
    pid = os.getpid()
    record: dict[str, object] = {"pid": pid, "started": start_time(pid), "host": _host()}
    partial = owner.with_name(f"{owner.name}.{pid}.tmp")
    partial.write_text(json.dumps({**extra, **record}) + "\n")
    os.replace(partial, owner)  # whole or absent: a run pruning stale worktrees reads it


def read_owner(owner: Path) -> dict[str, object]:
    """The owner file's record; empty when it is missing or not one."""
    try:
        record = json.loads(owner.read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def owner_gone(owner: Path) -> bool:
    """Whether the process that owns the directory is gone (no owner file: nobody owns it)."""
    try:
        record = json.loads(owner.read_text())
        pid = int(record["pid"])
    except FileNotFoundError:
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return True
    if record.get("host") != _host():
        return False  # another machine's run (shared file system): not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    started = record.get("started")
    return started is not None and start_time(pid) != started


def start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (tells a live owner from a reused pid)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _host() -> str:
    return socket.gethostname()
