"""The command a `tests_pass` with paths runs: the repository's test command scoped to those
paths (summarizers.runners.commands), with package.json's scripts read from the worktree.

One function for the verifier and the briefings, so the planner and the executor are shown
exactly the command the harness will run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from summarizers.repofiles import read_beneath
from summarizers.runners.commands import Unscopable, scope_to_paths
from summarizers.runners.tap import major_version

_PLACEHOLDER = "PATHS_PLACEHOLDER"


@dataclass(frozen=True)
class PathsRun:
    command: str
    note: str
    """What the command leaves out, or why it is the whole test command; empty when it is
    the test command on those paths and nothing else."""


def _package(root: Path) -> dict[str, object]:
    try:
        data = json.loads(read_beneath(root, "package.json") or b"")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def package_majors(root: Path) -> dict[str, int]:
    """Runner name -> the major version package.json's dependencies pin (`"tap": "^16.0.1"`
    -> 16): node-tap 16 refuses 18's `--disable-coverage`, 18 refuses 16's `--no-coverage`."""
    data = _package(root)
    majors: dict[str, int] = {}
    for key in ("dependencies", "devDependencies"):
        deps = data.get(key)
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            if isinstance(spec, str) and (major := major_version(spec)) is not None:
                majors.setdefault(str(name), major)
    return majors


def package_scripts(root: Path) -> dict[str, str]:
    """package.json's `scripts` at `root`; empty when there is none or it is not JSON."""
    scripts = _package(root).get("scripts")
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}


def command_for_paths(command: str, paths: list[str], root: Path) -> PathsRun:
    """The command run for `tests_pass` on `paths`; the whole test command, said so, when no
    test runner can be found in it."""
    scoped = scope_to_paths(command, paths, package_scripts(root), majors=package_majors(root))
    if isinstance(scoped, Unscopable):
        return PathsRun(
            command, f"the whole test command ran, not just those paths: {scoped.reason}"
        )
    return PathsRun(scoped.command, f"the test command {scoped.note}" if scoped.note else "")


def paths_briefing(command: str | None, root: Path) -> str:
    """One line for the planner: what a `tests_pass` with paths will run, `<paths>` standing
    for the paths (written relative to the directory the runner runs in)."""
    if not command:
        return ""
    scoped = scope_to_paths(
        command, [_PLACEHOLDER], package_scripts(root), majors=package_majors(root)
    )
    if isinstance(scoped, Unscopable):
        return f"A tests_pass with paths runs the whole test command: {scoped.reason}."
    shown = re.sub(rf"(\.\./)*{_PLACEHOLDER}", "<paths>", scoped.command)
    tail = f" (the test command {scoped.note})" if scoped.note else ""
    return f"A tests_pass with paths runs `{shown}`{tail}."
