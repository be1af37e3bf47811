"""The command a check runs for the tests a contract names: the repository's test command
narrowed to them (summarizers.runners.commands), with the tree's files and package.json read
from the worktree, and what each name covers among the ids the run will report.

One function for the verifier, the proofs and the briefings, so the planner and the executor
are shown exactly the command the harness will run, and a proof runs exactly the selection a
`tests_pass` on the same names runs.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from coder.verdict.run import package_scripts
from sandbox.changes import worktree_files
from sandbox.gitcli import GitError
from summarizers.repofiles import read_beneath, tracked_files
from summarizers.runners.commands import Unscopable, artifacts_in, runners_in, select_tests
from summarizers.runners.model import Target, spelled_target
from summarizers.runners.names import DIR, TEST, Project, read_name, read_names
from summarizers.runners.shell import parse
from summarizers.runners.targets import anywhere_target

_PLACEHOLDER = "PATHS_PLACEHOLDER"
_MAJOR = re.compile(r"\d+")


@dataclass(frozen=True)
class PathsRun:
    command: str
    note: str
    """What the command leaves out, or why it is the whole test command; empty when it is
    the test command on those tests and nothing else."""
    targets: tuple[Target, ...] = ()
    """What each name covers among the ids the run reports."""
    problem: str = ""
    """Why the names could not be read (a glob that matches nothing): the check fails so."""
    runner: str | None = None
    """The runner that runs them; None when the whole command runs."""


def project_of(root: Path) -> Project:
    """The tree as selection sees it: its files (tracked, and new ones not ignored; outside a
    git repository, every file but version control's and dependencies') and the runner
    versions package.json pins."""
    try:
        files = frozenset(worktree_files(root))
    except GitError:
        files = frozenset(f.path for f in tracked_files(root))
    return Project(files, ".", package_majors(root))


def package_majors(root: Path) -> dict[str, int]:
    """Package name -> the major version package.json's dependencies pin (`"tap": "^16.0.1"`
    -> 16): some runners spell the same flag differently between versions."""
    try:
        data = json.loads(read_beneath(root, "package.json") or b"")
    except ValueError:
        return {}
    majors: dict[str, int] = {}
    for key in ("dependencies", "devDependencies"):
        deps = data.get(key) if isinstance(data, dict) else None
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            if isinstance(spec, str) and (m := _MAJOR.search(spec)):
                majors.setdefault(str(name), int(m.group()))
    return majors


def command_for_paths(
    command: str, paths: Sequence[str], root: Path, project: Project | None = None
) -> PathsRun:
    """The command run for `tests_pass` on `paths` (files, directories, globs, test ids in any
    spelling); the whole test command, said so, when no test runner can be found in it."""
    project = project or project_of(root)
    names = read_names(paths, project)
    if isinstance(names, str):
        return PathsRun(command, "", (), names)
    scoped = select_tests(command, names, project, package_scripts(root))
    if isinstance(scoped, Unscopable):
        files: dict[str, list[str]] = {}
        for name in names:
            if name.kind != DIR and name.path:
                files.setdefault(name.text, []).append(name.path)
        fileless = {name.text: anywhere_target(name) for name in names if name.fileless}
        return PathsRun(
            command,
            f"the whole test command ran, not just those tests: {scoped.reason}; it is judged "
            "by its exit code, its counts line and the tests it names",
            tuple(
                fileless.get(p) or replace(spelled_target(p), files=tuple(files.get(p, ())))
                for p in paths
            ),
        )
    note = f"the test command {scoped.note}" if scoped.note else ""
    return PathsRun(scoped.command, note, scoped.targets, "", scoped.runner)


def targets_for(command: str | None, paths: Sequence[str], root: Path) -> tuple[Target, ...]:
    """What `paths` cover among the ids `command` reports, without changing what it runs
    (names of tests removed on purpose, for the judge)."""
    if not command or not paths:
        return tuple(spelled_target(p) for p in paths)
    return command_for_paths(command, paths, root).targets


def named_in_command(command: str) -> tuple[Target, ...]:
    """The tests an invariant's own command names by id (`tests/a.py::test_x`,
    `pkg.mod.T.test_y`; a title filter is not an id): they count when they
    fail even if they failed at the base."""
    words = [
        w.text for item in parse(command) or [] for c in item.pipeline.commands for w in c.words
    ]
    out: list[Target] = []
    for word in words:
        found = [] if word.startswith("-") else read_name(word, Project())
        for name in found if isinstance(found, list) else []:
            if name.kind != TEST:
                continue
            if name.dotted:
                out.append(Target(word, TEST, frozenset({word}), (word + ".",)))
            else:
                out.append(spelled_target(word))
    return tuple(out)


def runner_configuration(command: str | None, root: Path, paths: Sequence[str]) -> list[str]:
    """Which of `paths` change how the command's runners run or report tests."""
    if not command:
        return []
    found = runners_in(command, package_scripts(root))
    globs = [g for r in found for g in r.config_files]
    return [p for p in paths if any(fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], g) for g in globs)]


def artifacts_of(command: str | None, root: Path) -> tuple[str, ...]:
    """What the runs of `command` write into the tree (`artifacts_in`)."""
    return artifacts_in(command, package_scripts(root)) if command else ()


def _example_rank(path: str) -> tuple[bool, int, str]:
    """A file a reader takes for a test file: named like one (`test_x.py`, `x.test.ts`),
    shallow, not a package's `__init__.py` or a helper (the humanize trial was shown
    `tests/__init__.py`)."""
    base = posixpath.basename(path)
    named = base.startswith("test") or any(w in base for w in ("_test.", ".test.", ".spec."))
    return (not named or base.startswith("__"), path.count("/"), path)


def paths_briefing(command: str | None, root: Path) -> str:
    """One line for the planner: what a `tests_pass` with paths will run, shown for one of the
    repository's own test files (or `<paths>` standing for the paths, where it has none)."""
    if not command:
        return ""
    project = project_of(root)
    found = runners_in(command, package_scripts(root))
    tests = [f for r in found[:1] for f in project.files if r.is_test_file(f)]
    example = min(tests, key=_example_rank, default=None)
    if example is None:
        project = Project(project.files | {_PLACEHOLDER}, ".", project.majors)
    names = read_names([example or _PLACEHOLDER], project)
    assert not isinstance(names, str)
    scoped = select_tests(command, names, project, package_scripts(root))
    if isinstance(scoped, Unscopable):
        return f"A tests_pass with paths runs the whole test command: {scoped.reason}."
    tail = f" (the test command {scoped.note})" if scoped.note else ""
    if example is not None:
        return f"A tests_pass on `{example}` runs `{scoped.command}`{tail}."
    shown = re.sub(rf"(\.\./)*{_PLACEHOLDER}", "<paths>", scoped.command)
    return f"A tests_pass with paths runs `{shown}`{tail}."
