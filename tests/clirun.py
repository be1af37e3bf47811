"""`coder` as a person runs it: a real subprocess of this checkout, without an API key."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def coder_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = str(ROOT)
    return env


def coder_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "coder", *args]


def coder(*args: str, cwd: Path | None = None, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        coder_argv(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        env=coder_env(),
        timeout=120,
        **kw,
    )


def interruptible() -> None:
    """A child's SIGINT back to the default: a suite started in the background (`cmd &` in a
    script) ignores SIGINT, its children inherit that, and Ctrl-C tests would then wait forever."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_coder(*args: str, **kw: Any) -> subprocess.Popen[str]:
    """A `coder` process left running, its output piped, for tests that signal or race it."""
    return subprocess.Popen(
        coder_argv(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=coder_env(),
        preexec_fn=interruptible,
        **kw,
    )


def run_args(repo: Path, script: Path, *extra: str, task: str = "t") -> list[str]:
    """`coder run` on `repo` with a scripted model."""
    return ["run", "--task", task, "--repo", str(repo), "--model", f"script:{script}", *extra]
