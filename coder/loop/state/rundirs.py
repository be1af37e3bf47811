"""Where coder keeps its own files in a repository (`<repo>/.coder/`), never through a link.

A repository can commit `.coder` (or `.coder/runs`) as a symlink; followed, it would make the
harness write run directories, plans and caches wherever the link points, as whatever user the
harness runs as. Every component under the repository is checked: a real directory, or not
there yet (then created as one).

A run directory holds one run. Two runs given the same `--out` would write one trace, one
result and one final.patch between them, and `coder apply` would take whichever came last; so
a directory that holds a run's files is refused, and a run claims its directory by creating
its trace exclusively (of two runs started at once, one gets it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from coder.loop.state.usage import UsageError

CODER_DIR = ".coder"
RUN_FILES = ("trace.jsonl", "result.json", "state.json", "final.patch", "plan.v1.json")
"""What a run writes in its directory: any one of them there means the directory is taken."""


class RunDirTaken(UsageError):
    """The run directory holds another run: exit 2, nothing done."""


def refuse_taken(run_dir: Path) -> None:
    """RunDirTaken when `run_dir` holds another run's files (a link counts as one)."""
    held = [name for name in RUN_FILES if os.path.lexists(run_dir / name)]
    if held:
        raise RunDirTaken(
            f"--out {run_dir} already holds a run ({held[0]}); give each run a directory of its "
            "own (a new path, or leave --out out)"
        )


def claim_run_dir(run_dir: Path) -> None:
    """Make `run_dir` (and its parents) and take it for this run by creating its trace file
    exclusively; RunDirTaken when another run has it."""
    run_dir.mkdir(parents=True, exist_ok=True)
    refuse_taken(run_dir)
    try:
        os.close(
            os.open(
                run_dir / "trace.jsonl",
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o644,
            )
        )
    except FileExistsError:
        refuse_taken(run_dir)
        raise


def coder_path(repo: Path, *parts: str) -> Path:
    """`<repo>/.coder/<parts>`, refused (UsageError) when a component that exists is a symlink
    or not a directory; the last part may be missing or a directory."""
    path = repo
    for name in (CODER_DIR, *parts):
        path = path / name
        if path.is_symlink():
            raise UsageError(
                f"{path} is a symlink (to {os.readlink(path)}); coder keeps its runs under "
                f"{repo / CODER_DIR} and never follows a link there: remove it, or pass --out DIR"
            )
        if path.exists() and not path.is_dir():
            raise UsageError(
                f"{path} is not a directory; coder keeps its runs under {repo / CODER_DIR}: "
                "move it away, or pass --out DIR"
            )
    return path


def cache_dir(repo: Path, *parts: str) -> Path | None:
    """A cache directory under `.coder/`, or None (no cache) when a link is in the way."""
    try:
        return coder_path(repo, "cache", *parts)
    except UsageError:
        return None


def first_missing(path: Path) -> Path | None:
    """The outermost directory on the way to `path` that does not exist yet: what a run that
    cannot start must take back."""
    missing = None
    while not path.exists():
        missing, path = path, path.parent
    return missing


def discard_run_dir(run_dir: Path, fresh: Path | None) -> None:
    """Take back what a run that did not start made: the directories it created (`fresh`,
    from `first_missing`), else its trace in a directory that was there already."""
    if fresh is not None:
        shutil.rmtree(fresh, ignore_errors=True)
    else:
        (run_dir / "trace.jsonl").unlink(missing_ok=True)
