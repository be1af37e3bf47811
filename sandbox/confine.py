"""Confined shell commands: the `Sandbox` protocol and the choice of mode.

`bwrap` (sandbox/bwrap.py) confines file system, network, processes and privileges; `none`
(sandbox/unconfined.py) keeps only what needs no bubblewrap, and is only ever used when the
user asks for it: `auto` means bwrap, and when bwrap cannot start the run refuses and says
how to opt in. Both return a `CommandResult` and never raise for anything the command does;
the conformance tests in tests/sandbox hold both to the same behaviour.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Protocol

from sandbox.bwrap import BwrapSandbox, probe_argv
from sandbox.limits import Limits
from sandbox.repo_env import RepoEnvironment
from sandbox.running import CommandResult
from sandbox.unconfined import UnconfinedSandbox

SANDBOX_MODES = ("auto", "bwrap", "none")

__all__ = [
    "SANDBOX_MODES",
    "BwrapSandbox",
    "CommandResult",
    "Sandbox",
    "SandboxUnavailable",
    "UnconfinedSandbox",
    "bwrap_unavailable_reason",
    "make_sandbox",
]


class SandboxUnavailable(Exception):
    """The requested sandbox cannot run on this host; the message is one line for a person."""


class Sandbox(Protocol):
    name: str
    root: Path
    """The worktree on the host: where the harness reads and writes."""
    view_root: Path
    """Where commands see the worktree (the checkout's path under bwrap): relativize
    command output by this, not by `root`."""

    def run(
        self,
        command: str,
        *,
        cwd: Path,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult: ...


def make_sandbox(
    mode: str,
    root: Path,
    warn: Callable[[str], None] | None = None,
    *,
    environment: RepoEnvironment | None = None,
    limits: Limits | None = None,
    bwrap: str = "bwrap",
) -> Sandbox:
    """The sandbox for `--sandbox MODE`; SandboxUnavailable (exit 2) when `auto` or `bwrap`
    cannot start bubblewrap. Notes on how commands will run go to `warn`, once."""
    if mode not in SANDBOX_MODES:
        raise ValueError(f"unknown sandbox mode {mode!r}; known: {', '.join(SANDBOX_MODES)}")
    box: BwrapSandbox | UnconfinedSandbox
    if mode == "none":
        box = UnconfinedSandbox(root, environment=environment, limits=limits, warn=warn)
    else:
        reason = bwrap_unavailable_reason(bwrap)
        if reason is not None:
            raise SandboxUnavailable(
                f"--sandbox {mode}: bubblewrap cannot start here ({reason}); install it, or "
                "pass --sandbox none to run commands unconfined"
            )
        box = BwrapSandbox(root, environment=environment, bwrap=bwrap, limits=limits)
    if warn is not None:
        for note in box.notes:
            warn(note)
    return box


@cache
def bwrap_unavailable_reason(bwrap: str = "bwrap") -> str | None:
    """None when bubblewrap starts with the flags we use; else why not, in one line."""
    path = shutil.which(bwrap)
    if path is None:
        return f"{bwrap} not found on PATH (Debian/Ubuntu: apt install bubblewrap)"
    try:
        done = subprocess.run(
            probe_argv(path), capture_output=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{bwrap} did not run: {error}"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return lines[0] if lines else f"{bwrap} exited with status {done.returncode}"
