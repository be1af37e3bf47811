"""Python under bubblewrap with and without the interpreter's bytecode view
(sandbox/pycview.py), side by side in one run: interleaved repetitions, medians, the ratio.

Confined commands keep their bytecode under a private `PYTHONPYCACHEPREFIX`; without the view,
every command compiled the standard library and site-packages it imports from source. The
commands: `python -c pass`, `python -c 'import pytest'`, and `python -m pytest -q` on a small
repository of four tests (what the baseline, each step's check and the final check run).

Usage: python benchmarks/bench_sandbox_python.py [--reps 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from calcrepo import make_calc_repo  # noqa: E402

from sandbox.confine import BwrapSandbox  # noqa: E402
from sandbox.pycview import pyc_view  # noqa: E402

COMMANDS = {
    "python -c pass": "python -c pass",
    "import pytest": "python -c 'import pytest'",
    "pytest, 4 tests": "python -m pytest -q -p no:cacheprovider",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    started = time.monotonic()
    view = pyc_view()
    print(f"view: {view} (ready in {time.monotonic() - started:.2f}s)")
    repo = make_calc_repo(Path(tempfile.mkdtemp(prefix="bench-pyc-")))
    with_view = BwrapSandbox(repo)
    without = BwrapSandbox(repo)
    without.facts = replace(without.facts, pycache=None)
    print(f"{'command':<18} {'no view (s)':>12} {'view (s)':>10} {'ratio':>7}")
    for label, command in COMMANDS.items():
        times: dict[str, list[float]] = {"no": [], "view": []}
        for rep in range(args.reps):
            order = [("no", without), ("view", with_view)]
            for name, box in order if rep % 2 else order[::-1]:
                begun = time.monotonic()
                result = box.run(command, cwd=repo, timeout_s=120)
                times[name].append(time.monotonic() - begun)
                if result.exit_code not in (0, 1):  # calc's add() is red on purpose
                    print(result.output, file=sys.stderr)
                    return 1
        no, yes = statistics.median(times["no"]), statistics.median(times["view"])
        print(f"{label:<18} {no:>12.3f} {yes:>10.3f} {yes / no:>7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
