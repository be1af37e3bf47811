"""What a harness test run costs against the same command run directly (issue 22, item 9).

A suite of N generated tests (default 20,000: 40 files of 500 parametrized cases each, three
of them failing so the log has failures to read), in a real git repository, in the same
sandbox, three ways:

- direct:  `python -m pytest -q` through `sandbox.run`, nothing read;
- harness: `coder.verdict.run.run_tests` (stop flags, JUnit XML in the sandbox's reports
  directory, the log and the report read once into outcomes for every test);
- old:     the previous way, `PYTEST_ADDOPTS=-rA` (a line per test) and the log read for
  outcomes, for comparison.

Prints each way's median seconds and the ratio to direct (goal: harness <= 1.2x).

Usage: python benchmarks/bench_testruns.py [--tests 20000] [--repeat 3] [--sandbox bwrap]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gitrepo import make_repo  # noqa: E402

from coder.verdict.run import run_tests  # noqa: E402
from sandbox.confine import make_sandbox  # noqa: E402
from summarizers.runners.reader import read_log  # noqa: E402

COMMAND = "python -m pytest -q -p no:randomly"
PER_FILE = 500


def suite(path: Path, tests: int) -> Path:
    files = max(1, tests // PER_FILE)
    tree = {}
    for i in range(files):
        bad = "assert n != 7" if i < 3 else "assert n >= 0"
        tree[f"tests/test_gen{i:03d}.py"] = (
            "import pytest\n\n\n"
            f"@pytest.mark.parametrize('n', range({PER_FILE}))\n"
            f"def test_case(n):\n    {bad}\n"
        )
    return make_repo(path, tree)


def timed(fn) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = suite(Path(tmp) / "repo", args.tests)
        box = make_sandbox(args.sandbox, repo)
        env_old = {
            "PYTEST_ADDOPTS": "-rA -p no:cacheprovider --continue-on-collection-errors --maxfail=0"
        }
        ways = {
            "direct": lambda: box.run(COMMAND, cwd=repo, timeout_s=600),
            "harness": lambda: run_tests(box, repo, COMMAND, 600),
            "old (-rA, log read)": lambda: read_log(
                box.run(COMMAND, cwd=repo, timeout_s=600, env=env_old).output
            ),
        }
        seconds: dict[str, list[float]] = {name: [] for name in ways}
        counted: dict[str, int] = {}
        for _ in range(args.repeat):
            for name, fn in ways.items():
                took, out = timed(fn)
                seconds[name].append(took)
                outcomes = getattr(out, "outcomes", None)
                counted[name] = len(outcomes) if outcomes is not None else -1
        direct = statistics.median(seconds["direct"])
        print(f"suite: {args.tests} generated tests, sandbox {box.name}, {args.repeat} runs each")
        print(f"{'way':<22}{'median s':>10}{'ratio':>8}{'tests named':>13}")
        for name, values in seconds.items():
            median = statistics.median(values)
            named = "-" if counted[name] < 0 else str(counted[name])
            print(f"{name:<22}{median:>10.2f}{median / direct:>8.2f}{named:>13}")


if __name__ == "__main__":
    main()
