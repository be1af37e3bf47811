"""Fixture directories: loaded and checked up front, so a broken one is named before any run."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from coder.bench.layout import Layout, load_layout, unavailable

MODES = ("contract", "react", "plan", "reflect")
LATER_MODES = frozenset({"reflect"})
"""Modes added after the fixture layout was fixed: a fixture directory from before may lack
their scripts and still runs the modes it has (the bench reports the pairs it skipped)."""


class TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str
    """What the model is asked to do."""
    test_cmd: str
    """The fixture repository's own test command."""
    acceptance_cmd: str
    """Run on the final tree with acceptance/ laid over it; exit 0 means resolved."""
    language: str
    """python | javascript"""
    tags: list[str] = []
    """What the fixture exercises (bugfix, refactor, failure classes…)."""


EXPECTED_FILE = "expected.json"


@dataclass(frozen=True)
class Fixture:
    name: str
    path: Path
    spec: TaskFile
    layout: Layout = field(default_factory=Layout)
    """What git does not hold, laid out after the first commit (coder/bench/layout.py)."""
    missing: tuple[str, ...] = ()
    """Requested later modes (LATER_MODES) this fixture has no script for: not run."""
    unavailable: str | None = None
    """Why none of its modes can run on this machine (what its layout needs is not here)."""
    modes: tuple[str, ...] = ()
    """The requested modes (every one is skipped when the fixture is unavailable)."""

    def runs(self, mode: str) -> bool:
        """Whether the bench runs this fixture in this mode."""
        return self.unavailable is None and mode not in self.missing

    @property
    def repo(self) -> Path:
        return self.path / "repo"

    @property
    def acceptance(self) -> Path:
        return self.path / "acceptance"

    def script(self, mode: str) -> Path:
        return self.path / "scripts" / f"{mode}.json"

    def expected(self, mode: str) -> dict[str, object] | None:
        """What `expected.json` beside the fixtures says this mode's run ends as, if it says."""
        table = self.path.parent / EXPECTED_FILE
        try:
            data = json.loads(table.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        found = data.get(self.name, {}).get(mode) if isinstance(data, dict) else None
        return found if isinstance(found, dict) else None


class FixtureError(Exception):
    """One line per problem, every problem at once."""


def is_instance_suite(path: Path) -> bool:
    """A SWE-bench suite kept beside the fixtures (fixtures/swebench: `instances.jsonl`,
    `repos/`, `sessions/`), which `--swebench` runs; not a fixture."""
    return (path / "instances.jsonl").is_file()


def load_fixtures(
    root: Path, only: str | None, modes: tuple[str, ...], need_scripts: bool
) -> list[Fixture]:
    if not root.is_dir():
        raise FixtureError(f"{root}: no such fixtures directory")
    problems: list[str] = []
    fixtures: list[Fixture] = []
    for path in sorted(
        p
        for p in root.iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and not is_instance_suite(p)
    ):
        if only and only not in path.name:
            continue
        found = _check(path, modes, need_scripts, problems)
        if found:
            fixtures.append(found)
    if problems:
        raise FixtureError("\n".join(problems))
    if not fixtures:
        raise FixtureError(f"{root}: no fixtures" + (f" matching {only!r}" if only else ""))
    return fixtures


def _check(
    path: Path, modes: tuple[str, ...], need_scripts: bool, problems: list[str]
) -> Fixture | None:
    before = len(problems)
    task_file = path / "task.toml"
    spec = None
    if not task_file.is_file():
        problems.append(f"{path.name}: missing task.toml")
    else:
        try:
            spec = TaskFile.model_validate(tomllib.loads(task_file.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, ValidationError) as exc:
            problems.append(f"{path.name}/task.toml: {str(exc).splitlines()[0]}")
    for sub in ("repo", "acceptance"):
        if not (path / sub).is_dir():
            problems.append(f"{path.name}: missing {sub}/")
    layout = Layout()
    try:
        layout = load_layout(path)
    except ValueError as exc:
        problems.append(f"{path.name}/layout.toml: {exc}")
    for source in layout.submodules.values():
        if not (path / source).is_dir():
            problems.append(f"{path.name}/layout.toml: no directory {source}/ for a submodule")
    missing = []
    for mode in modes if need_scripts else ():
        script = path / "scripts" / f"{mode}.json"
        if not script.is_file():
            if mode in LATER_MODES:
                missing.append(mode)
            else:
                problems.append(f"{path.name}: missing scripts/{mode}.json")
            continue
        problem = _script_problem(script)
        if problem:
            problems.append(f"{path.name}/scripts/{mode}.json: {problem}")
    if len(problems) > before or spec is None:
        return None
    return Fixture(path.name, path, spec, layout, tuple(missing), unavailable(layout), modes)


def skipped(fixtures: list[Fixture]) -> list[dict[str, str]]:
    """The fixture × mode pairs the bench does not run, and why."""
    return [
        {"fixture": f.name, "mode": mode, "reason": _skip_reason(f, mode)}
        for f in fixtures
        for mode in f.modes
        if not f.runs(mode)
    ]


def _skip_reason(fixture: Fixture, mode: str) -> str:
    if fixture.unavailable:
        return fixture.unavailable
    return f"no scripts/{mode}.json (a fixture from before {mode} mode)"


def _script_problem(path: Path) -> str | None:
    from contracts.script import ScriptError, load_script

    try:
        load_script(path)
    except ScriptError as exc:
        return str(exc)
    return None
