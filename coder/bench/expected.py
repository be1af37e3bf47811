"""The verdicts a shipped suite's recorded sessions give when replayed, kept in `expected.json`.

A suite directory holds `instances.jsonl`, `repos/`, `sessions/<instance_id>.<mode>.json` (what
`coder bench --record` wrote in a live session) and `expected.json`: for each recording, the
verdict fields its replay gives (`{instance: {mode: {resolved, claimed_success, ...}}}`, the
shape of fixtures/expected.json). A harness change that flips one shows as a failing test.

    python3 -m coder.bench.expected fixtures/swebench [--workers N]

replays every recording through `coder bench` (the same command the regression test runs) and
rewrites expected.json from what it gave.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coder.bench.attempts import is_variant

FIELDS = (
    "resolved",
    "claimed_success",
    "shipped_broken",
    "stop_reason",
    "rollbacks",
    "false_failure",
)
"""What a replay must give again, as fixtures/expected.json keeps them."""
EXPECTED_FILE = "expected.json"
SESSIONS = "sessions"


def recordings(suite: Path) -> dict[tuple[str, str], Path]:
    """(instance_id, mode) -> its recording; instance ids may hold dots, modes never do.
    A later attempt's script beside one (`<id>.<mode>.a2.json`) is no recording of its own:
    only `--attempts` replays it, as a candidate of that run."""
    found: dict[tuple[str, str], Path] = {}
    for path in sorted((suite / SESSIONS).glob("*.json")):
        if is_variant(path):
            continue
        ident, _, mode = path.name.removesuffix(".json").rpartition(".")
        if ident and mode:
            found[(ident, mode)] = path
    return found


def replay_command(
    suite: Path, json_out: Path, workers: int = 2, only: str | None = None
) -> list[str]:
    """`coder bench` replaying every recording of `suite` (the modes they were made in), or
    those of the instances whose id holds `only`."""
    modes = sorted({mode for _, mode in recordings(suite)})
    return [
        *(sys.executable, "-m", "coder", "bench"),
        *("--swebench", str(suite / "instances.jsonl")),
        *("--model", f"script:{suite / SESSIONS}"),
        *("--modes", ",".join(modes), "--workers", str(workers)),
        *(("--only", only) if only else ()),
        *("--json", str(json_out)),
    ]


def verdicts(runs: list[dict[str, Any]], recorded: set[tuple[str, str]]) -> dict[str, Any]:
    """The FIELDS of every recorded run, nested instance -> mode (runs with no recording,
    which only found no script, are left out)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for run in runs:
        key = (run["fixture"], run["mode"])
        if key in recorded:
            out.setdefault(key[0], {})[key[1]] = {f: run.get(f) for f in FIELDS}
    return {ident: dict(sorted(modes.items())) for ident, modes in sorted(out.items())}


@dataclass(frozen=True)
class Replayed:
    """A suite's recordings replayed: the verdicts (what expected.json keeps), why each run's
    checks failed (to say what changed when a verdict differs), and the bench process."""

    verdicts: dict[str, Any]
    why: dict[tuple[str, str], list[str]]
    process: subprocess.CompletedProcess[str]


def replay(suite: Path, workers: int = 2, only: str | None = None) -> Replayed:
    """Replay every recording of `suite` (or `only`'s)."""
    with tempfile.TemporaryDirectory(prefix="coder-expected-") as scratch:
        out = Path(scratch) / "bench.json"
        done = subprocess.run(
            replay_command(suite, out, workers, only),
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": os.environ.get("COLUMNS", "120")},
        )
        if done.returncode != 0 or not out.is_file():
            return Replayed({}, {}, done)
        runs = json.loads(out.read_text(encoding="utf-8"))["runs"]
    why = {(r["fixture"], r["mode"]): [r.get("message") or "", *r["failed_checks"]] for r in runs}
    return Replayed(verdicts(runs, set(recordings(suite))), why, done)


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python3 -m coder.bench.expected",
        description="Replay a suite's recorded sessions and rewrite its expected.json.",
    )
    parser.add_argument("suite", type=Path, help="the suite directory (fixtures/swebench)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    suite = args.suite.resolve()
    if not (suite / "instances.jsonl").is_file() or not recordings(suite):
        print(f"error: {suite}: needs instances.jsonl and sessions/*.json", file=sys.stderr)
        return 2
    done = replay(suite, args.workers)
    if done.process.returncode != 0:
        print(done.process.stdout + done.process.stderr, file=sys.stderr)
        return done.process.returncode or 1
    found = done.verdicts
    (suite / EXPECTED_FILE).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {suite / EXPECTED_FILE}: {sum(len(m) for m in found.values())} replays")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
