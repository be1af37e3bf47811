"""What the model is shown on real repositories, before and after a change of the view (issue 31).

Every recorded real session of a shipped suite (fixtures/swebench/sessions/<id>.<mode>.json,
contract and react, recorded live) is replayed with the scripted model in two checkouts: BEFORE
(`--before REF`, default main, exported with `git archive` into a temporary directory) and AFTER
(this checkout, or `--after REF`). Same replies, same instances, same clones: the difference in
input tokens is the difference in what the harness sends. The recordings' reported usage is
left out of the replayed scripts, so every request is counted at its own size (request bytes / 4,
as the peer's tokens are counted). A replay whose recorded replies no longer fit (the harness
asked for more turns than were recorded, ended before using them all, or gave another verdict
than expected.json) is reported as such and left out of the sums, never a crash.

The repository map of every instance's base is built in both checkouts (each one's own default
budget) for the instance's problem statement: its size in tokens and its recall, the files
upstream's fix changes among the map's entries. With `--real-repos DIR` (git clones named
owner__name), the real tasks of the notes (benchmarks/data/view_tasks.json: the HTTP client case
whose map was empty, a Markdown library, …) are mapped too.

Usage: python benchmarks/bench_view.py [--before REF] [--after REF] [--suite DIR] [--only ID,...]
           [--modes contract,react] [--workers N] [--map-only] [--real-repos DIR] [--json FILE]
The JavaScript instances prepare once from the npm registry (cached), as `coder bench` does.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coder.bench.expected import FIELDS, recordings  # noqa: E402
from coder.bench.shipped import cached_clones  # noqa: E402
from coder.bench.swebench import load_instances  # noqa: E402
from coder.bench.swebench_job import prepare_clone  # noqa: E402
from summarizers.repomap_fit import listed_paths  # noqa: E402
from summarizers.tokens import estimate_tokens  # noqa: E402

TASKS = ROOT / "benchmarks" / "data" / "view_tasks.json"
MAP_SNIPPET = """
import json, sys, time
from pathlib import Path
from summarizers.repomap import build_repo_map
out = {}
for case in json.load(sys.stdin):
    started = time.perf_counter()
    text = build_repo_map(Path(case["root"]), case["task"])
    out[case["name"]] = {"text": text, "seconds": time.perf_counter() - started}
print(json.dumps(out))
"""


@dataclass
class Case:
    """A task to map: a checkout at the fix's parent, the task's text, the fix's files."""

    name: str
    root: Path
    task: str
    fix_files: list[str]


@dataclass
class Side:
    """One checkout's figures."""

    label: str
    tree: Path
    runs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    replay_error: str | None = None
    maps: dict[str, dict[str, Any]] = field(default_factory=dict)
    map_error: str | None = None


def export(ref: str, dest: Path) -> Path:
    """The tree of `ref` in `dest` (nothing of the repository's state changes: no worktree)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def sub_suite(suite: Path, only: set[str] | None, modes: list[str], dest: Path) -> dict:
    """A suite of the chosen instances whose sessions carry no recorded usage; its `repos`
    links to the real suite's, so both checkouts build (and cache) the same clones."""
    (dest / "sessions").mkdir(parents=True)
    (dest / "repos").symlink_to((suite / "repos").resolve())
    lines = [line for line in (suite / "instances.jsonl").read_text().splitlines() if line.strip()]
    chosen = [line for line in lines if only is None or json.loads(line)["instance_id"] in only]
    (dest / "instances.jsonl").write_text("\n".join(chosen) + "\n")
    ids = {json.loads(line)["instance_id"] for line in chosen}
    turns = {}
    for (ident, mode), path in recordings(suite).items():
        if ident in ids and mode in modes:
            script = json.loads(path.read_text())
            for turn in script["turns"]:
                turn.pop("usage", None)
            (dest / "sessions" / path.name).write_text(json.dumps(script))
            turns[(ident, mode)] = len(script["turns"])
    return turns


def replay(side: Side, suite: Path, modes: list[str], workers: int, scratch: Path) -> None:
    """`coder bench` of this checkout over the sub-suite; its rows by (instance, mode)."""
    out = scratch / f"{side.label}.json"
    command = [
        *(sys.executable, "-m", "coder", "bench", "--swebench", str(suite / "instances.jsonl")),
        *("--model", f"script:{suite / 'sessions'}", "--modes", ",".join(modes)),
        *("--workers", str(workers), "--json", str(out)),
    ]
    env = {**os.environ, "PYTHONPATH": str(side.tree), "COLUMNS": "120"}
    done = subprocess.run(command, cwd=side.tree, env=env, capture_output=True, text=True)
    if not out.is_file():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        side.replay_error = f"exit {done.returncode}: {tail[0]}"
        return
    for run in json.loads(out.read_text())["runs"]:
        side.runs[(run["fixture"], run["mode"])] = run


def fit_of(run: dict[str, Any] | None, recorded: int, expected: dict[str, Any] | None) -> str:
    """ "fits", or why the recorded replies no longer fit this checkout's harness."""
    if run is None:
        return "no run"
    if expected is not None:
        differs = [f for f in FIELDS if run.get(f) != expected.get(f)]
        if differs:
            return "verdict differs: " + ", ".join(
                f"{f} {expected.get(f)}->{run.get(f)}" for f in differs
            )
    used = run.get("turns", 0)
    if used < recorded:
        return f"ended early: {used} of {recorded} turns"
    if used > recorded or run.get("stop_reason") == "model_error":
        return f"ran out of turns: {recorded} recorded"
    return "fits"


def map_cases(suite: Path, only: set[str] | None, scratch: Path, real: Path | None) -> list[Case]:
    clones = cached_clones(suite / "repos", lambda line: print(line, file=sys.stderr))
    gold = {}
    for line in (suite / "instances.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            gold[row["instance_id"]] = re.findall(r"^diff --git a/(\S+)", row["patch"], re.M)
    cases = []
    (scratch / "maps").mkdir()
    for instance in load_instances(suite / "instances.jsonl").instances:
        if only is None or instance.instance_id in only:
            root = prepare_clone(clones, instance, scratch / "maps" / instance.instance_id)
            cases.append(
                Case(instance.instance_id, root, instance.task(False), gold[instance.instance_id])
            )
    if real is not None:
        for task in json.loads(TASKS.read_text())["tasks"]:
            source = real / task["repo"].replace("/", "__")
            if not (source / ".git").exists() and not (source / "objects").is_dir():
                print(f"not mapped: {task['name']}: no clone at {source}", file=sys.stderr)
                continue
            root = scratch / "maps" / task["name"]
            subprocess.run(
                ["git", "clone", "-q", "--no-checkout", str(source), str(root)], check=True
            )
            subprocess.run(
                ["git", "-C", str(root), "checkout", "-q", "--detach", task["base"]], check=True
            )
            cases.append(Case(task["name"], root, task["task"], task["fix_files"]))
    return cases


def build_maps(side: Side, cases: list[Case]) -> None:
    payload = json.dumps([{"name": c.name, "root": str(c.root), "task": c.task} for c in cases])
    env = {**os.environ, "PYTHONPATH": str(side.tree)}
    done = subprocess.run(
        [sys.executable, "-c", MAP_SNIPPET],
        input=payload,
        cwd=side.tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        side.map_error = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return
    side.maps = json.loads(done.stdout)


def _ratio(before: float, after: float) -> str:
    return f"{after / before:.2f}" if before else "-"


def print_replays(before: Side, after: Side, turns: dict, expected: dict) -> dict[str, Any]:
    print("\nReplayed input tokens (the recorded replies; each request counted at bytes / 4)")
    for side in (before, after):
        if side.replay_error:
            print(f"  {side.label}: the replay did not run: {side.replay_error}")
    modes = sorted({mode for _, mode in turns})
    head = (
        f"{'instance':34}" + "".join(f" | {m:>8} before   after  ratio" for m in modes) + " | fit"
    )
    print(head + "\n" + "-" * len(head))
    sums = {"before": 0, "after": 0}
    rows = []
    for ident in sorted({i for i, _ in turns}):
        cells, notes = [], []
        for mode in modes:
            if (ident, mode) not in turns:
                cells.append(f" | {'':>8} {'':>6} {'':>7} {'':>6}")
                continue
            want = expected.get(ident, {}).get(mode)
            fits = {
                s.label: fit_of(s.runs.get((ident, mode)), turns[(ident, mode)], want)
                for s in (before, after)
            }
            b = before.runs.get((ident, mode), {}).get("tokens", {}).get("input", 0)
            a = after.runs.get((ident, mode), {}).get("tokens", {}).get("input", 0)
            ok = all(f == "fits" for f in fits.values())
            if ok:
                sums["before"] += b
                sums["after"] += a
            else:
                notes += [f"{mode} {label}: {f}" for label, f in fits.items() if f != "fits"]
            cells.append(f" | {'':>8} {b:>6} {a:>7} {_ratio(b, a) if ok else '  n/a':>6}")
            rows.append({"instance": ident, "mode": mode, "before": b, "after": a, "fit": fits})
        print(f"{ident:34}" + "".join(cells) + " | " + ("; ".join(notes) or "fits"))
    print(
        f"sum over replays that fit both: before {sums['before']:,}, after {sums['after']:,}, "
        f"ratio {_ratio(sums['before'], sums['after'])}"
    )
    return {"rows": rows, "sums": sums}


def print_maps(before: Side, after: Side, cases: list[Case]) -> dict[str, Any]:
    print("\nRepository map (each checkout's default budget): tokens and recall of the fix's files")
    for side in (before, after):
        if side.map_error:
            print(f"  {side.label}: the maps were not built: {side.map_error}")
    head = f"{'task':34} | tokens before  after  ratio | recall before  after | first fix entry"
    print(head + "\n" + "-" * len(head))
    totals = {s.label: {"tokens": 0, "hits": 0, "files": 0} for s in (before, after)}
    rows = []
    for case in cases:
        figures = {}
        for side in (before, after):
            text = side.maps.get(case.name, {}).get("text", "")
            paths = listed_paths(text)
            hits = [f for f in case.fix_files if f in paths]
            first = min((paths.index(f) for f in hits), default=None)
            figures[side.label] = (estimate_tokens(text), len(hits), first)
            totals[side.label]["tokens"] += estimate_tokens(text)
            totals[side.label]["hits"] += len(hits)
            totals[side.label]["files"] += len(case.fix_files)
        (bt, bh, bf), (at, ah, af) = figures[before.label], figures[after.label]
        n = len(case.fix_files)
        print(
            f"{case.name:34} | {bt:>13} {at:>6} {_ratio(bt, at):>6} | {bh:>9}/{n} {ah:>5}/{n} | "
            f"{'-' if bf is None else bf + 1:>5} {'-' if af is None else af + 1:>5}"
        )
        rows.append(
            {"task": case.name, "before": figures[before.label], "after": figures[after.label]}
        )
    for label, total in totals.items():
        recall = total["hits"] / total["files"] if total["files"] else 0.0
        print(
            f"{label}: recall {total['hits']}/{total['files']} = {recall:.2f}, map tokens {total['tokens']:,}"
        )
    return {"rows": rows, "totals": totals}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="main", help="the ref to compare against")
    parser.add_argument("--after", default=None, help="a ref (default: this checkout as it is)")
    parser.add_argument("--suite", type=Path, default=ROOT / "fixtures" / "swebench")
    parser.add_argument("--only", default=None, help="instance ids, comma-separated")
    parser.add_argument("--modes", default="contract,react")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--map-only", action="store_true", help="no replays, only the maps")
    parser.add_argument("--real-repos", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    suite = args.suite.resolve()
    only = set(args.only.split(",")) if args.only else None
    modes = args.modes.split(",")
    expected_file = suite / "expected.json"
    expected = json.loads(expected_file.read_text()) if expected_file.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="bench-view-") as tmp:
        scratch = Path(tmp)
        before = Side(f"before ({args.before})", export(args.before, scratch / "before"))
        after_tree = export(args.after, scratch / "after") if args.after else ROOT
        after = Side(f"after ({args.after or 'this checkout'})", after_tree)
        cases = map_cases(suite, only, scratch, args.real_repos)
        for side in (before, after):
            build_maps(side, cases)
        report: dict[str, Any] = {"maps": print_maps(before, after, cases)}
        if not args.map_only:
            turns = sub_suite(suite, only, modes, scratch / "suite")
            for side in (before, after):
                replay(side, scratch / "suite", modes, args.workers, scratch)
            report["replays"] = print_replays(before, after, turns, expected)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
