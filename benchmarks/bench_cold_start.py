"""Cold start: the time from `coder run` to the first model call on a large repository.

Issue 13 measured 15.5 s cold (11.9 s warm) on a 20,000-file repository. Goal: under 3 s cold.
A repository of N files (Python modules with functions and classes, JavaScript modules and
prose, in nested packages) is made once and committed; each sample runs on a fresh `git clone`
of it (cold: no repo-map cache, an index as a clone leaves it) and then a second time on the same
clone (warm). The test command is `true`, so the baseline costs a confined process start and no
more. The model is scripted and stops at its first call; the time to that call is split into the
phases the runner goes through, by wrapping each of them.

Usage: python benchmarks/bench_cold_start.py [--files 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gitrepo import GIT_ENV, git, write_script  # noqa: E402

import coder.loop.runner as runner  # noqa: E402
from coder.loop.runner import RunOptions, run_task  # noqa: E402

GOAL_S = 3.0
PHASES: dict[str, tuple[Any, str]] = {
    "prune stale worktrees": (runner, "prune_stale_worktrees"),
    "worktree (git worktree add)": (runner.Workspace, "create"),
    "sandbox probe": (runner, "make_sandbox"),
    "baseline (test command)": (runner, "run_baseline"),
    "repo map": (runner, "build_repo_map"),
}
OTHER = "other (config, trace, briefing)"


def python_module(i: int) -> str:
    return (
        f'"""Module {i} of the generated package."""\n\n'
        f"import os\n\nLIMIT_{i} = {i}\n\n\n"
        f"def compute_{i}(values, scale=1):\n"
        f'    """Sum of values times scale."""\n'
        f"    return sum(v * scale for v in values) + LIMIT_{i}\n\n\n"
        f"class Record{i}:\n"
        f"    def __init__(self, name, size=0):\n"
        f"        self.name = name\n        self.size = size\n\n"
        f"    def describe(self):\n"
        f'        return f"{{self.name}}: {{self.size}}"\n\n'
        f"    def grow(self, by):\n        self.size += by\n        return self\n"
    )


def js_module(i: int) -> str:
    return (
        f"'use strict';\n\nconst BASE_{i} = {i};\n\n"
        f"function render{i}(items, opts = {{}}) {{\n"
        f"  return items.map((x) => `${{x}}:${{BASE_{i}}}`).join(opts.sep || ',');\n}}\n\n"
        f"class Widget{i} {{\n  constructor(name) {{ this.name = name; }}\n"
        f"  label() {{ return this.name.toUpperCase(); }}\n}}\n\n"
        f"module.exports = {{ render{i}, Widget{i} }};\n"
    )


def make_big_repo(path: Path, files: int) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    for i in range(files):
        kind = i % 10
        group = f"pkg{i // 500:03d}/sub{(i // 50) % 10}"
        if kind < 6:
            rel, text = f"src/{group}/mod{i:05d}.py", python_module(i)
        elif kind < 9:
            rel, text = f"web/{group}/mod{i:05d}.js", js_module(i)
        else:
            rel, text = f"docs/{group}/page{i:05d}.md", f"# Page {i}\n\nNotes on module {i}.\n"
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "generated")
    return path


class Timings:
    """Wraps the runner's phases and the model, recording seconds spent in each."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.first_call: float | None = None
        self._undo: list[Callable[[], None]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        raw = inspect.getattr_static(owner, name)
        bound = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return bound(*args, **kwargs)
            finally:
                self.spent[label] = self.spent.get(label, 0.0) + time.perf_counter() - started

        setattr(owner, name, staticmethod(timed) if isinstance(owner, type) else timed)
        self._undo.append(lambda: setattr(owner, name, raw))

    def watch_model(self) -> None:
        original = runner.make_model

        def make(spec: str, **kwargs: Any) -> Any:
            model = original(spec, **kwargs)
            complete = model.complete

            def first(**call: Any) -> Any:
                if self.first_call is None:
                    self.first_call = time.perf_counter()
                return complete(**call)

            model.complete = first
            return model

        runner.make_model = make
        self._undo.append(lambda: setattr(runner, "make_model", original))

    def undo(self) -> None:
        for step in reversed(self._undo):
            step()


def one_run(repo: Path, script: Path, out: Path, task: str) -> dict[str, float]:
    timings = Timings()
    timings.watch_model()
    for label, (owner, name) in PHASES.items():
        timings.wrap(owner, name, label)
    started = time.perf_counter()
    try:
        run_task(
            RunOptions(repo=repo, task=task, model=f"script:{script}", test_cmd="true", out_dir=out)
        )
    finally:
        timings.undo()
    assert timings.first_call is not None, "the model was never called"
    total = timings.first_call - started
    row = {label: timings.spent.get(label, 0.0) for label in PHASES}
    row[OTHER] = max(0.0, total - sum(row.values()))
    row["total"] = total
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    task = "Fix compute_42 so that scale applies to LIMIT_42 too"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        origin = make_big_repo(work / "origin", args.files)
        print(f"made a {args.files}-file repository in {time.perf_counter() - started:.1f}s")
        script = write_script(work / "stop.json", [{"tool": "stop", "input": {"reason": "bench"}}])
        cold: list[dict[str, float]] = []
        warm: list[dict[str, float]] = []
        for r in range(args.repeat):
            clone = work / f"clone{r}"
            subprocess.run(
                ["git", "clone", "-q", str(origin), str(clone)],
                check=True,
                env={**GIT_ENV, "PATH": "/usr/bin:/bin"},
            )
            cold.append(one_run(clone, script, work / f"run{r}c", task))
            warm.append(one_run(clone, script, work / f"run{r}w", task))
        labels = [*PHASES, OTHER]
        print(f"\n{'seconds before the first model call':40} {'cold':>8} {'warm':>8}")
        for label in [*labels, "total"]:
            c = statistics.median(r[label] for r in cold)
            w = statistics.median(r[label] for r in warm)
            print(f"{label:40} {c:>8.2f} {w:>8.2f}")
        c_total = statistics.median(r["total"] for r in cold)
        print(
            f"\ngoal: under {GOAL_S:.0f}s cold ({args.files} files, median of {args.repeat}): "
            f"{'yes' if c_total < GOAL_S else 'NO'}"
        )


if __name__ == "__main__":
    main()
