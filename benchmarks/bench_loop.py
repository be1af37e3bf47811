"""Run-loop overheads, measured with the scripted model (no model time) on real git repositories.

1. Harness time per step on a 1k-file repository: wall time minus model latency and command
   time (context assembly, checkpoint, verify bookkeeping, commit, rollback). Goal < 150 ms.
2. The baseline's cost as a share of a run (issue 11): every bench fixture in contract mode,
   the baseline's seconds against the run's wall time (an upper bound: the scripted model has
   no latency) and against the run's command time, and the final-check time saved by reusing
   the last step's identical run.

What the context policy costs is measured in bench_context.py (its 30-turn big-log run was
here, as a context-size measure).

Usage: python benchmarks/bench_loop.py [--files 1000] [--steps 10] [--only harness|baseline|proof]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gitrepo import make_repo, write_script  # noqa: E402

from coder.bench.fixtures import load_fixtures  # noqa: E402
from coder.bench.runner import FIXTURE_ENV, _make_repo  # noqa: E402
from coder.loop.runner import RunOptions, run_task  # noqa: E402
from coder.loop.state.trace import read_trace  # noqa: E402


def big_repo(path: Path, files: int) -> Path:
    tree = {f"pkg/mod{i:05d}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(files)}
    return make_repo(path, tree)


def step(i: int, failing: bool = False) -> dict:
    pattern = "NEVER_PRESENT" if failing else f"return x \\+ {i} \\+ 1"
    return {
        "stepId": f"s{i}",
        "intendedModification": {
            "files": [f"pkg/mod{i:05d}.py"],
            "invariants": [
                {"kind": "signature_unchanged", "symbol": f"f{i}", "file": f"pkg/mod{i:05d}.py"},
                {"kind": "text_present", "pattern": pattern},
            ],
        },
        "rollbackPlan": {"gitCheckout": "HEAD~1"},
    }


def harness_per_step(work: Path, files: int, steps: int) -> tuple[list[float], list[float]]:
    """Per-step harness seconds from the trace: each step's window (checkpoint to verified, or
    to the end of its rollback) minus the model and command time inside it."""
    repo = big_repo(work / f"repo{files}", files)

    def edit(i: int) -> dict:
        return {
            "tool": "edit_file",
            "input": {
                "path": f"pkg/mod{i:05d}.py",
                "old_text": f"return x + {i}\n",
                "new_text": f"return x + {i} + 1\n",
            },
        }

    turns: list[dict] = [
        {
            "tool": "submit_plan",
            "input": {"goal": "bump", "steps": [step(i, i == 0) for i in range(steps)]},
        }
    ]
    turns += [edit(0), {"tool": "finish_step", "input": {"summary": "s0"}}]
    turns += [
        {"tool": "submit_plan", "input": {"goal": "bump", "steps": [step(i) for i in range(steps)]}}
    ]
    for i in range(steps):
        turns += [edit(i), {"tool": "finish_step", "input": {"summary": f"s{i}"}}]
    script = write_script(work / f"script{files}.json", turns)
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="bump",
            model=f"script:{script}",
            test_cmd="true",
            out_dir=work / f"run{files}",
            max_turns=500,
        )
    )
    assert outcome.result.status == "verified", outcome.result.message
    events = read_trace(outcome.run_dir / "trace.jsonl")
    verified, rolled_back = [], []
    start, spent = None, 0.0
    for e in events:
        if e["type"] == "checkpoint":
            start, spent = e["ts"], 0.0
        elif e["type"] == "model_call" and start is not None:
            spent += e.get("latency_s", 0.0)
        elif e["type"] in ("verification", "observation") and start is not None:
            spent += e.get("duration_s", 0.0)
        elif e["type"] in ("step_verified", "rollback") and start is not None:
            (verified if e["type"] == "step_verified" else rolled_back).append(
                e["ts"] - start - spent
            )
            start = None
    return verified, rolled_back


def baseline_costs(work: Path, repeat: int) -> dict[str, list[float]]:
    """Per contract-mode fixture run: baseline seconds, its share of wall and command time, and
    the final check's seconds (0 when it reused the last step's run)."""
    samples: dict[str, list[float]] = {k: [] for k in ("base", "wall", "share", "cmd", "final")}
    samples["reused"] = []
    for r in range(repeat):
        for fixture in load_fixtures(ROOT / "fixtures", None, ("contract",), True):
            repo = _make_repo(fixture, work / f"b{r}-{fixture.name}")
            outcome = run_task(
                RunOptions(
                    repo=repo,
                    task=fixture.spec.task,
                    model=f"script:{fixture.script('contract')}",
                    test_cmd=fixture.spec.test_cmd,
                    out_dir=work / f"b{r}-{fixture.name}-run",
                    command_env=FIXTURE_ENV,
                )
            )
            events = read_trace(outcome.run_dir / "trace.jsonl")
            base = next(e for e in events if e["type"] == "baseline")["duration_s"]
            wall = outcome.result.wall_s
            commands = wall - outcome.result.harness_s
            final = [e for e in events if e.get("kind") == "final_check"]
            start = next((e["ts"] for e in reversed(events) if e["type"] == "step_verified"), None)
            samples["base"].append(base)
            samples["wall"].append(wall)
            samples["share"].append(base / wall)
            samples["cmd"].append(base / commands if commands > 0 else 0.0)
            if final and start is not None:
                samples["final"].append(final[0]["ts"] - start)
                samples["reused"].append(1.0 if final[0].get("reused") else 0.0)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="*", default=[1000])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["harness", "baseline", "proof"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f"{'measure':48} {'median':>10} {'goal':>10}  ok")
        if args.only in (None, "baseline"):
            print_baseline_costs(work, args.repeat)
            print_reuse_saving(work, args.repeat)
        if args.only in (None, "proof"):
            print_proof_cost(work, args.repeat)
        if args.only not in (None, "harness"):
            files_to_measure: list[int] = []
        else:
            files_to_measure = args.files
        for files in files_to_measure:
            verified: list[float] = []
            rolled: list[float] = []
            for r in range(args.repeat):
                v, rb = harness_per_step(work / f"r{r}", files, args.steps)
                verified += v
                rolled += rb
            for label, samples in (("verified step", verified), ("step with rollback", rolled)):
                ms = statistics.median(samples) * 1000
                print(
                    f"{f'harness per {label}, {files} files (ms)':48} {ms:>10.1f} {150:>10}  "
                    f"{'yes' if ms < 150 else 'NO'}"
                )


SLOW_SUITE = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    **{
        f"tests/test_slow{i}.py": f"import time\n\n\ndef test_{i}():\n    time.sleep(0.05)\n"
        for i in range(20)
    },
}


def final_check_seconds(work: Path, reuse: bool, r: int) -> tuple[float, bool]:
    """The final check after one step whose invariant ran the full test command (reused) or
    the same command spelt differently (run again)."""
    repo = make_repo(work / f"reuse{reuse}{r}", SLOW_SUITE)
    command = "python -m pytest -q" if reuse else "python -m pytest -q ."
    fix = {
        "stepId": "fix",
        "intendedModification": {
            "files": ["calc.py"],
            "invariants": [{"kind": "tests_pass", "command": command}],
        },
        "rollbackPlan": {"gitCheckout": "HEAD~1"},
    }
    turns = [
        {"tool": "submit_plan", "input": {"goal": "fix", "steps": [fix]}},
        {
            "tool": "edit_file",
            "input": {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"},
        },
        {"tool": "finish_step", "input": {"summary": "fixed"}},
    ]
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="fix add",
            model=f"script:{write_script(work / f'reuse{reuse}{r}.json', turns)}",
            test_cmd="python -m pytest -q",
            out_dir=work / f"reuse{reuse}{r}-run",
            command_env=FIXTURE_ENV,
        )
    )
    assert outcome.result.status == "verified", outcome.result.message
    events = read_trace(outcome.run_dir / "trace.jsonl")
    start = next(e["ts"] for e in events if e["type"] == "step_verified")
    final = next(e for e in events if e.get("kind") == "final_check")
    return final["ts"] - start, bool(final.get("reused"))


def print_reuse_saving(work: Path, repeat: int) -> None:
    again = [final_check_seconds(work, False, r) for r in range(repeat)]
    reused = [final_check_seconds(work, True, r) for r in range(repeat)]
    assert all(hit for _, hit in reused) and not any(hit for _, hit in again)
    slow, fast = statistics.median(t for t, _ in again), statistics.median(t for t, _ in reused)
    print(f"{'final check, 21-test suite, run again (s)':48} {slow:>10.2f}")
    print(f"{'final check, same suite, last step run reused (s)':48} {fast:>10.2f}")
    print(f"{'ratio run again / reused':48} {slow / max(fast, 1e-3):>10.0f}x")


def print_baseline_costs(work: Path, repeat: int) -> None:
    costs = baseline_costs(work, repeat)
    med = {k: statistics.median(v) if v else 0.0 for k, v in costs.items()}
    runs = len(costs["base"])
    print(f"{f'baseline run, {runs} fixture runs (s)':48} {med['base']:>10.2f}")
    print(f"{'whole run, scripted model (s)':48} {med['wall']:>10.2f}")
    print(f"{'baseline share of the run (median)':48} {med['share']:>10.1%}")
    print(
        f"{'baseline share of the run (total)':48} {sum(costs['base']) / sum(costs['wall']):>10.1%}"
    )
    print(f"{'baseline share of command time (median)':48} {med['cmd']:>10.1%}")
    reused = sum(costs["reused"])
    saved = [f for f, r in zip(costs["final"], costs["reused"], strict=True) if not r]
    ratio = f"{reused:.0f}/{len(costs['reused'])}"
    print(f"{'fixture final checks reusing the last step run':48} {ratio:>10}")
    if saved:
        print(f"{'fixture final check, not reused (s)':48} {statistics.median(saved):>10.2f}")


def proof_seconds(work: Path, r: int) -> tuple[float, float]:
    """(the tests_fail_before check's seconds, the step's verification seconds) for one step
    that fixes add() with a new regression test, proven, and runs the whole suite."""
    repo = make_repo(work / f"proof{r}", SLOW_SUITE)
    fix = {
        "stepId": "fix",
        "intendedModification": {
            "files": ["calc.py", "tests/test_calc.py"],
            "invariants": [
                "the new tests in tests/test_calc.py fail before this step and pass after",
                "All tests pass",
            ],
        },
        "rollbackPlan": {"gitCheckout": "HEAD~1"},
    }
    new_test = "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"
    turns = [
        {"tool": "submit_plan", "input": {"goal": "fix", "steps": [fix]}},
        {
            "tool": "edit_file",
            "input": {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"},
        },
        {
            "tool": "edit_file",
            "input": {
                "path": "tests/test_calc.py",
                "old_text": "assert add(2, 3) == 5\n",
                "new_text": "assert add(2, 3) == 5\n" + new_test,
            },
        },
        {"tool": "finish_step", "input": {"summary": "fixed, with a proven test"}},
    ]
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="fix add",
            model=f"script:{write_script(work / f'proof{r}.json', turns)}",
            test_cmd="python -m pytest -q",
            out_dir=work / f"proof{r}-run",
            command_env=FIXTURE_ENV,
        )
    )
    assert outcome.result.status == "verified", outcome.result.message
    checks = [e for e in read_trace(outcome.run_dir / "trace.jsonl") if e["type"] == "verification"]
    proof = next(e["duration_s"] for e in checks if e["kind"] == "tests_fail_before")
    return proof, sum(e.get("duration_s") or 0.0 for e in checks if e.get("step") == "fix")


def print_proof_cost(work: Path, repeat: int) -> None:
    samples = [proof_seconds(work, r) for r in range(repeat)]
    proof = statistics.median(p for p, _ in samples)
    share = statistics.median(p / total for p, total in samples)
    print(f"{'tests_fail_before proof, 1 new test (s)':48} {proof:>10.2f}")
    print(
        f"{'step verification with it, 21-test suite (s)':48} {statistics.median(t for _, t in samples):>10.2f}"
    )
    print(f"{'proof share of the step verification (median)':48} {share:>10.1%}")


if __name__ == "__main__":
    main()
