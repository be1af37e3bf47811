"""The README's main job, `coder bench` on a fresh clone (offline, no API key), timed before and
after a change, side by side in one run (issue 30.8: runner installs shared, never copied).

Each side is a fresh checkout of one commit (a detached `git worktree` of this repository, as a
clone would have it) running `python -m coder bench --json FILE` from its own root with only
its own code on PYTHONPATH. The sides alternate (before, after, before, after, ...), so a
machine whose load drifts slows both alike; the script prints each side's median wall time,
the ratio after/before pair by pair (median), what the JavaScript runner fixtures' runs took
(sum of their runs' `wall_s`), and how many runs differed from fixtures/expected.json (the
bench's own `unexpected`). The runners must be installed (`scripts/js-runners`), or both
sides skip those fixtures and the comparison says nothing.

`--before` defaults to the commit before runs shared the runners (the parent of the first
commit whose coder/bench/layout.py has `share_js_runners`); `--after` to HEAD.
`--only NAME` times a subset (`--only js-` the runner fixtures), for quicker repetitions.

Usage: python benchmarks/bench_main_job.py [--reps 1] [--before REV] [--after REV]
       [--only NAME] [--workers 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNNER_FIXTURES = ("js-vitest-durations", "js-jest-coupons", "js-mocha-lru", "js-tap-ranges")
GOAL_S = 240.0


@dataclass
class Side:
    name: str
    rev: str
    checkout: Path
    walls: list[float] = field(default_factory=list)
    runner_walls: list[float] = field(default_factory=list)
    runs: list[int] = field(default_factory=list)
    unexpected: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def default_before() -> str:
    """The parent of the first commit in which the bench shares the runners."""
    first = git(
        "log",
        "--reverse",
        "--format=%H",
        "-S",
        "def share_js_runners",
        "--",
        "coder/bench/layout.py",
    ).splitlines()
    if not first:
        raise SystemExit("no commit shares the runners yet: pass --before REV")
    return f"{first[0]}^"


def checkout(rev: str, where: Path) -> Path:
    git("worktree", "add", "-q", "--detach", str(where), rev)
    return where


def run_bench(side: Side, out: Path, only: str | None, workers: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(side.checkout)
    env.pop("CODER_SHARED_INSTALLS", None)  # each side as a fresh shell would start it
    argv = [sys.executable, "-m", "coder", "bench", "--json", str(out), "--workers", str(workers)]
    if only:
        argv += ["--only", only]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=side.checkout, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if not out.is_file():
        raise SystemExit(
            f"{side.name}: coder bench wrote no report (exit {done.returncode})\n{done.stderr[-2000:]}"
        )
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = data["runs"]
    side.walls.append(wall)
    side.runs.append(len(rows))
    side.runner_walls.append(sum(r["wall_s"] for r in rows if r["fixture"] in RUNNER_FIXTURES))
    side.unexpected.append(sum(1 for r in rows if r.get("unexpected")))
    side.skipped.append(len(data.get("skipped", [])))
    print(
        f"  {side.name:<6} {wall:7.1f} s  {len(rows)} runs, runner fixtures' runs "
        f"{side.runner_walls[-1]:.1f} s, unexpected {side.unexpected[-1]}, "
        f"skipped {side.skipped[-1]} (exit {done.returncode})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--before", default=None)
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--only", default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="keep the JSON reports here")
    args = parser.parse_args()
    before = args.before or default_before()
    base = Path(tempfile.mkdtemp(prefix="bench-main-job-"))
    sides = [
        Side("before", git("rev-parse", before), checkout(before, base / "before")),
        Side("after", git("rev-parse", args.after), checkout(args.after, base / "after")),
    ]
    print(
        f"coder bench{' --only ' + args.only if args.only else ''} --workers {args.workers}, "
        f"{args.reps} rep(s), {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    for side in sides:
        print(f"  {side.name}: {side.rev[:12]} {git('log', '-1', '--format=%s', side.rev)[:70]}")
    try:
        for rep in range(args.reps):
            for side in sides:
                run_bench(side, base / f"{side.name}-{rep}.json", args.only, args.workers)
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for report in base.glob("*.json"):
                shutil.copy(report, args.keep / report.name)
    finally:
        for side in sides:
            git("worktree", "remove", "--force", str(side.checkout))
        shutil.rmtree(base, ignore_errors=True)
    old, new = sides
    ratios = [a / b for a, b in zip(new.walls, old.walls, strict=True)]
    print(
        f"median wall: before {statistics.median(old.walls):.1f} s, "
        f"after {statistics.median(new.walls):.1f} s; after/before {statistics.median(ratios):.2f}x"
    )
    print(
        f"runner fixtures' runs (sum of wall_s): before {statistics.median(old.runner_walls):.1f} s, "
        f"after {statistics.median(new.runner_walls):.1f} s"
    )
    if not args.only:
        verdict = "under" if statistics.median(new.walls) < GOAL_S else "over"
        print(f"goal: the main job in under {GOAL_S:.0f} s on 2 cores; after is {verdict} it")


if __name__ == "__main__":
    main()
