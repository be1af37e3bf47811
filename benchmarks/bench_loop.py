"""Run-loop overheads, measured with the scripted model (no model time) on real git repositories.

Harness time per step on a 1k-file repository: wall time minus model latency and command
time (context assembly, checkpoint, verify bookkeeping, commit, rollback). Goal < 150 ms.
What the context policy costs is measured in bench_context.py (its 30-turn big-log run was
here as a context-size measure).

Usage: python benchmarks/bench_loop.py [--files 1000] [--steps 10]
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

from coder.loop.runner import RunOptions, run_task  # noqa: E402
from coder.loop.trace import read_trace  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="*", default=[1000])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f"{'measure':48} {'median':>10} {'goal':>10}  ok")
        for files in args.files:
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


if __name__ == "__main__":
    main()
