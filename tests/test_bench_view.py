"""benchmarks/bench_view.py reports a replay whose recorded replies no longer fit the harness
as such (issue 31, item 6): the lead runs it after merging everyone's view changes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_view  # noqa: E402

TINY = ROOT / "tests" / "data" / "swebench_tiny"


def _suite_with(tmp_path: Path, change) -> tuple[Path, dict, dict]:
    """The tiny suite's first instance in contract mode, its recording changed by `change`."""
    suite = tmp_path / "tiny"
    shutil.copytree(TINY, suite, ignore=shutil.ignore_patterns("sessions"))
    (suite / "sessions").mkdir()
    ident = "tinyjs__clamp-1"
    recording = json.loads((TINY / "sessions" / f"{ident}.contract.json").read_text())
    recording["turns"] = change(recording["turns"])
    (suite / "sessions" / f"{ident}.contract.json").write_text(json.dumps(recording))
    turns = bench_view.sub_suite(suite, {ident}, ["contract"], tmp_path / "sub")
    expected = json.loads((suite / "expected.json").read_text())
    return tmp_path / "sub", turns, expected


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda turns: turns[:-1], "verdict differs: "),
        (
            lambda turns: [*turns, {"tool": "stop", "input": {"reason": "never asked"}}],
            "ended early: 4 of 5",
        ),
    ],
    ids=["a-turn-too-few", "a-turn-too-many"],
)
def test_a_replay_whose_replies_no_longer_fit_is_said_to_be_so(tmp_path: Path, change, said):
    suite, turns, expected = _suite_with(tmp_path, change)
    side = bench_view.Side("after", ROOT)
    bench_view.replay(side, suite, ["contract"], 1, tmp_path)
    assert side.replay_error is None
    key = ("tinyjs__clamp-1", "contract")
    fit = bench_view.fit_of(side.runs.get(key), turns[key], expected[key[0]]["contract"])
    assert fit.startswith(said), fit
    if said.startswith("verdict"):  # the script ran out before the step finished
        assert "stop_reason completed->model_error" in fit, fit


def test_the_replayed_scripts_carry_no_recorded_usage(tmp_path: Path):
    suite, turns, _ = _suite_with(tmp_path, lambda turns: turns)
    script = json.loads((suite / "sessions" / "tinyjs__clamp-1.contract.json").read_text())
    recorded = json.loads((TINY / "sessions" / "tinyjs__clamp-1.contract.json").read_text())
    assert len(script["turns"]) == len(recorded["turns"]) == turns[("tinyjs__clamp-1", "contract")]
    assert all("usage" not in turn for turn in script["turns"])
    assert (suite / "repos").resolve() == (tmp_path / "tiny" / "repos").resolve()
