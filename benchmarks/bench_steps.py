"""Independent steps at the same time (`--jobs J`, issue 33): a repository with three steps
that depend on nothing, a model that takes a second per call (the fake OpenAI-compatible
server of tests/, answering by phase), run once one step at a time and once with the three
together, side by side in one run: the wall times and their ratio.

Each step reads its file a few times, edits it and finishes (`--reads`: how many reads, so the
model's share of a step can be set); its invariant is checked from the file (`text_present`),
so the model's time dominates, as it does with a real model.

Each round runs both, in alternating order (a busy machine's slow minute falls on either);
the figures are the medians over the rounds, and the ratio is the ratio of the medians.

Usage: python benchmarks/bench_steps.py [--delay 1.0] [--reads 8] [--rounds 3]
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

from fake_model_servers import FakeServer  # noqa: E402
from phase_model import PhaseModel  # noqa: E402
from three_steps import independent_phases, make_three  # noqa: E402

from coder.loop.runner import RunOptions, run_task  # noqa: E402
from coder.loop.state.trace import read_trace  # noqa: E402

CEILING = 0.6
"""Issue 33: three independent steps together take at most 0.6x the time one at a time."""


def timed_run(work: Path, jobs: int, delay_s: float, reads: int) -> tuple[float, str, int]:
    repo = make_three(work / f"repo-{jobs}-{delay_s}")
    model = PhaseModel(independent_phases(reads), delay_s)
    with FakeServer("/v1/chat/completions", api_root="/v1", respond=model) as server:
        started = time.monotonic()
        outcome = run_task(
            RunOptions(
                repo=repo,
                task="set the three values",
                model="openai:local-test",
                base_url=server.base_url,
                jobs=jobs,
            )
        )
        wall = time.monotonic() - started
        calls = len(server.requests)
    events = read_trace(outcome.run_dir / "trace.jsonl")
    together = sum(1 for e in events if e["type"] == "steps_overlapped")
    result = outcome.result
    status = f"{result.status} ({result.stop_reason})"
    if together:
        status += ", steps overlapped"
    t = result.timing
    status += (
        f"; setup {t.setup_s:.1f} s, baseline {t.baseline_s:.1f} s, checks "
        f"{t.verification_s:.1f} s, final check {t.final_check_s:.1f} s"
    )
    return wall, status, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--reads", type=int, default=8, help="reads per step before its edit")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both (medians)")
    args = parser.parse_args()
    walls: dict[int, list[float]] = {1: [], 3: []}
    seen: dict[int, tuple[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-steps-") as tmp:
        work = Path(tmp)
        timed_run(work / "warm", 1, 0.0, 0)  # imports and caches warm, for both alike
        for n in range(args.rounds):
            for jobs in (1, 3) if n % 2 == 0 else (3, 1):
                wall, status, calls = timed_run(work / f"round-{n}", jobs, args.delay, args.reads)
                walls[jobs].append(wall)
                seen[jobs] = (status, calls)
    one, three = statistics.median(walls[1]), statistics.median(walls[3])
    ratio = three / one
    print(f"model: {args.delay:.1f} s a call; three independent steps, {args.reads + 2} calls each")
    print(f"medians over {args.rounds} round(s), each round both in alternating order")
    for jobs, label, median in (
        (1, "one at a time (--jobs 1)", one),
        (3, "together      (--jobs 3)", three),
    ):
        rounds = ", ".join(f"{w:.1f}" for w in walls[jobs])
        status, calls = seen[jobs]
        print(f"{label}: {median:6.1f} s (rounds {rounds}), {calls} calls, {status}")
    verdict = "within" if ratio <= CEILING else "OVER"
    print(f"ratio of the medians: {ratio:.2f} ({verdict} the {CEILING}x ceiling)")


if __name__ == "__main__":
    main()
