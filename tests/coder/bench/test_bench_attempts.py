"""`coder bench --attempts N` on a fixture whose first attempt ships an off-by-one that only
the hidden acceptance tests see, and whose second attempt proves the edge case: per mode,
resolved@1, resolved@N with coder's selection, and the oracle. And `--predictions-in` judged
alone, without `--model`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from coder.bench.cli import bench_command

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def test_the_selection_resolves_what_the_first_attempt_shipped_broken(tmp_path):
    console = Console(record=True, width=120, force_terminal=False)
    out = tmp_path / "bench.json"
    code = bench_command(
        FIXTURES, None, "contract,react", "js-offbyone-pages", 2, out, console, attempts=2
    )
    assert code == 0, console.export_text()
    data = json.loads(out.read_text())
    per_mode = data["attempts"]["per_mode"]
    at = {m: (s["resolved_at_1"], s["resolved_at_n"], s["oracle"]) for m, s in per_mode.items()}
    # attempt 2's proven test fails on attempt 1's tree, so attempt 2 is selected: in contract
    # mode its step proved it, in react mode the test it added fails on the base and passes on
    # its tree
    assert at == {"contract": (0, 1, 1), "react": (0, 1, 1)}
    rows = {r["mode"]: r for r in data["runs"]}
    contract = rows["contract"]
    assert (contract["selected"], contract["resolved"], contract["shipped_broken"]) == (
        2,
        True,
        False,
    )
    assert [a["resolved"] for a in contract["attempts"]] == [False, True]
    assert [a["proofs"] for a in contract["attempts"]] == ["0/1", "0/0"]
    react = rows["react"]
    assert (react["selected"], react["resolved"], react["shipped_broken"]) == (2, True, False)
    assert [a["proofs"] for a in react["attempts"]] == ["0/1", "0/0"]
    assert per_mode["contract"]["mean_tokens_at_n"] > per_mode["contract"]["mean_tokens_at_1"]
    text = console.export_text()
    table = text[text.index("2 attempts: what selection buys") :]
    line = next(x for x in table.splitlines() if x.strip("│ ").startswith("contract"))
    assert [c.strip() for c in line.strip("│ ").split("│")][1:4] == ["0/1", "1/1", "1/1"]
    line = next(x for x in table.splitlines() if x.strip("│ ").startswith("react"))
    assert [c.strip() for c in line.strip("│ ").split("│")][1:4] == ["0/1", "1/1", "1/1"]


@pytest.mark.timeout(900)
def test_predictions_are_judged_alone_without_a_model(swebench_repos, tmp_path):
    from swebench_repos import INSTANCES

    from coder.bench.swebench_source import SweBenchArgs

    ident = "r1chardj0n3s__parse-1.22.1"
    gold = next(json.loads(line) for line in INSTANCES.read_text().splitlines() if ident in line)
    predictions = tmp_path / "peer.jsonl"
    predictions.write_text(
        json.dumps(
            {"instance_id": ident, "model_name_or_path": "gold-agent", "model_patch": gold["patch"]}
        )
        + "\n"
    )
    console = Console(record=True, width=100, file=open("/dev/null", "w"))  # noqa: SIM115
    code = bench_command(
        Path("unused"), None, "contract,react,plan,reflect", ident, 2, tmp_path / "b.json",
        console, swebench=SweBenchArgs(INSTANCES, swebench_repos), predictions_in=predictions,
    )  # fmt: skip
    assert code == 0, console.export_text()
    rows = json.loads((tmp_path / "b.json").read_text())["runs"]
    assert [(r["fixture"], r["mode"], r["resolved"]) for r in rows] == [(ident, "gold-agent", True)]
