"""Where a run's task comes from: `--task TEXT`, `--task -` (standard input) or `--task-file`.

A long task (an issue's text, a log) does not fit a shell argument comfortably; reading it
from a file or a pipe keeps it exactly as written. Exactly one source is given, and an empty
task is bad input, said in one line before anything starts.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from coder.exits import fail

MAX_TASK_BYTES = 1_000_000
"""A task longer than this is almost certainly the wrong file."""


def read_task(task: str | None, task_file: Path | None, stdin: TextIO | None = None) -> str:
    """The task text the flags name; exit 2 with one line when they name none, two, or nothing."""
    if task is not None and task_file is not None:
        fail("give either --task or --task-file, not both")
    if task is None and task_file is None:
        fail("the run needs a task: --task TEXT, --task - (standard input) or --task-file FILE")
    if task_file is not None:
        text = _read_file(task_file)
        source = str(task_file)
    elif task == "-":
        text = _read_stdin(stdin or sys.stdin)
        source = "standard input"
    else:
        assert task is not None
        text, source = task, "--task"
    if len(text.encode("utf-8", errors="replace")) > MAX_TASK_BYTES:
        fail(f"the task from {source} is longer than {MAX_TASK_BYTES:,} bytes")
    if not text.strip():
        fail(f"the task from {source} is empty")
    return text.strip("\n") if source != "--task" else text


def _read_stdin(stdin: TextIO | None) -> str:
    """Standard input's text; a closed descriptor (`<&-`: Python then has no sys.stdin) or one
    that cannot be read is bad input, said in one line."""
    if stdin is None:
        fail("--task -: standard input is closed; pipe the task in or use --task-file FILE")
    try:
        return stdin.read(MAX_TASK_BYTES + 1)
    except UnicodeDecodeError:
        fail("--task -: standard input is not UTF-8 text")
    except (OSError, ValueError) as exc:
        fail(f"--task -: standard input cannot be read: {getattr(exc, 'strerror', None) or exc}")


def _read_file(path: Path) -> str:
    if not path.is_file():
        fail(f"--task-file {path}: no such file")
    try:
        return path.read_bytes()[: MAX_TASK_BYTES + 1].decode("utf-8")
    except UnicodeDecodeError:
        fail(f"--task-file {path}: not UTF-8 text")
    except OSError as exc:
        fail(f"--task-file {path}: {exc.strerror}")
