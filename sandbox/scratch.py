"""Per-command scratch directories in /tmp, and the sweep of those a killed harness left.

A command's scrubbed git configs (bwrap) or private HOME and TMPDIR (`none` mode) live in a
directory named after the harness's pid for the command's duration. SIGKILL leaves no Python
cleanup, so each new sandbox removes the directories whose harness is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path


def scratch_dir(prefix: str) -> Path:
    """A fresh private directory `<tmp>/<prefix><pid>-<random>`."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def sweep_stale(prefix: str, min_age_s: float = 60.0) -> list[Path]:
    """Remove scratch directories of harnesses that are gone; returns what went."""
    base = Path(tempfile.gettempdir())
    now = time.time()
    try:
        entries = [e for e in base.iterdir() if e.name.startswith(prefix)]
    except OSError:
        return []
    removed: list[Path] = []
    for entry in entries:
        pid = entry.name.removeprefix(prefix).split("-", 1)[0]
        try:
            if now - entry.stat().st_mtime < min_age_s:
                continue
        except OSError:
            continue
        if pid.isdigit() and _alive(int(pid)):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
