"""How long `validate_plan` takes on plans of growing size (median of repeated runs).

    python benchmarks/bench_plan_validation.py [--repeat N]

Each step has two file globs, a discard path, two natural-language invariants and one object,
and depends on the step before it and the one ten back, so ids, graph, paths, rollback and the
invariant compiler all do real work.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contracts.validation import validate_plan  # noqa: E402


def make_plan(n: int) -> dict:
    steps = []
    for i in range(n):
        deps = [f"s{i - 1}"] if i else []
        if i >= 10:
            deps.append(f"s{i - 10}")
        steps.append(
            {
                "stepId": f"s{i}",
                "dependencies": deps,
                "intendedModification": {
                    "files": [f"src/m{i}/**", f"tests/test_{i}.py"],
                    "invariants": [
                        f"All unit tests in tests/test_{i}.py must exit code 0",
                        f"Zero breaking changes to fn{i} signature",
                        {"kind": "command_succeeds", "command": "make check"},
                    ],
                },
                "rollbackPlan": {"gitCheckout": "HEAD~1", "discardPaths": [f"src/m{i}/a.py"]},
            }
        )
    return {"goal": "bench", "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"{'steps':>6}  {'median ms':>10}  {'min ms':>8}  {'max ms':>8}  {'us/step':>8}")
    for n in (10, 100, 1000, 5000):
        plan = make_plan(n)
        assert validate_plan(plan).ok
        times = []
        for _ in range(args.repeat if n <= 1000 else max(3, args.repeat // 5)):
            start = time.perf_counter()
            validate_plan(plan)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{n:>6}  {median * 1e3:>10.1f}  {min(times) * 1e3:>8.1f}  {max(times) * 1e3:>8.1f}"
            f"  {median / n * 1e6:>8.0f}"
        )


if __name__ == "__main__":
    main()
